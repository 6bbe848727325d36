//! Embeddings for the CLI, in three tiers:
//! - the static lane, a table lookup per chunk, built whenever a search
//!   reads meaning: ready a moment after indexing, on any machine;
//! - MiniLM over each question's candidates (`search` and MCP's `search` by
//!   default): the few dozen chunks a question reaches, from the disk cache
//!   where it has them, the rest computed on the CPU, in about a second;
//! - MiniLM over every chunk, when asked for (`--minilm`, `--embed`, a
//!   bundle being written) or when the index already holds its vectors (a
//!   bundle): from the same disk cache, by the same content hashes. Its lane
//!   then serves instead of the other two.

use anyhow::Result;
use fathom_embed::cache::DiskCache;
use fathom_embed::{Embedder, asset};
use fathom_engine::Index;

use crate::progress::Progress;

/// MiniLM, as [`prepare`] leaves it.
pub enum Minilm {
    /// Loaded (and every chunk embedded); boxed, as the model is large.
    Loaded(Box<Embedder>),
    /// Asked for, but its asset is missing or unreadable (said on stderr).
    Missing,
    /// Not asked for, and the index holds none of its vectors.
    NotAsked,
}

impl Minilm {
    pub fn loaded(self) -> Option<Embedder> {
        match self {
            Minilm::Loaded(embedder) => Some(*embedder),
            Minilm::Missing | Minilm::NotAsked => None,
        }
    }
}

/// Builds the static lane, then, where `minilm` asks for it or the index
/// already holds MiniLM's vectors, embeds what is missing with MiniLM and
/// returns the model, for the queries. A missing asset is said on stderr
/// and that tier left out: searches then say in their `note` what ran.
pub fn prepare(index: &mut Index, minilm: bool) -> Result<Minilm> {
    let dir = asset::default_dir();
    match fathom_engine::embed::load_static(&dir) {
        Ok(model) => index.build_static(model).map_err(anyhow::Error::msg)?,
        Err(e) => eprintln!("fathom: {e}; no static lane"),
    }
    if !minilm && index.embedding_status().embedded == 0 {
        return Ok(Minilm::NotAsked);
    }
    let (weights, tokenizer) = match asset::read_dir(&dir) {
        Ok(files) => files,
        Err(e) => {
            eprintln!("fathom: {e}; MiniLM is left out");
            return Ok(Minilm::Missing);
        }
    };
    let embedder = Embedder::cpu(&weights, &tokenizer)?;
    let mut cache = DiskCache::open(&DiskCache::default_dir()).ok();
    let mut progress = Progress::new();
    fathom_engine::embed::embed_index(index, &embedder, cache.as_mut(), &mut progress)?;
    progress.finish();
    Ok(Minilm::Loaded(Box::new(embedder)))
}

/// MiniLM for re-ranking questions' candidates: the one `prepare` loaded,
/// else loaded from the asset where `prepare` did not try; `None` where the
/// asset is missing (said on stderr once), and search reads meaning through
/// the static table alone.
pub fn for_questions(prepared: Minilm) -> Option<Embedder> {
    match prepared {
        Minilm::Loaded(embedder) => Some(*embedder),
        Minilm::Missing => None,
        Minilm::NotAsked => {
            match asset::read_dir(&asset::default_dir()).map(|(weights, tokenizer)| Embedder::cpu(&weights, &tokenizer))
            {
                Ok(Ok(embedder)) => Some(embedder),
                Ok(Err(e)) | Err(e) => {
                    eprintln!("fathom: {e}; questions are read through the static table alone");
                    None
                }
            }
        }
    }
}

/// The disk cache of MiniLM's vectors, where it opens; a search without
/// it embeds its candidates each time.
pub fn cache() -> Option<DiskCache> {
    DiskCache::open(&DiskCache::default_dir()).ok()
}
