//! Embeddings for the CLI: the model asset from disk, vectors from the
//! disk cache where it has them, the rest computed on the CPU.

use anyhow::Result;
use fathom_embed::cache::DiskCache;
use fathom_embed::{Embedder, asset};
use fathom_engine::Index;

use crate::progress::Progress;

/// Embeds the index's chunks and returns the model, for the queries.
/// Returns `None`, after saying why on stderr, when the model asset is
/// missing: searches then run lexically and their `note` says so.
pub fn prepare(index: &mut Index) -> Result<Option<Embedder>> {
    let dir = asset::default_dir();
    let (weights, tokenizer) = match asset::read_dir(&dir) {
        Ok(files) => files,
        Err(e) => {
            eprintln!("fathom: {e}; searching lexically");
            return Ok(None);
        }
    };
    let embedder = Embedder::cpu(&weights, &tokenizer)?;
    let mut cache = DiskCache::open(&DiskCache::default_dir()).ok();
    let mut progress = Progress::new();
    fathom_engine::embed::embed_index(index, &embedder, cache.as_mut(), &mut progress)?;
    progress.finish();
    Ok(Some(embedder))
}
