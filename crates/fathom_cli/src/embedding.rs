//! Embeddings for the CLI: the model asset from disk, vectors from the
//! disk cache where it has them, the rest computed on the CPU.

use std::io::IsTerminal;
use std::time::Instant;

use anyhow::Result;
use fathom_embed::cache::DiskCache;
use fathom_embed::{Embedder, asset};
use fathom_engine::{Index, Observer, Stage};

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
    let mut progress = Progress { start: Instant::now(), tty: std::io::stderr().is_terminal(), last: 0.0 };
    fathom_engine::embed::embed_index(index, &embedder, cache.as_mut(), &mut progress)?;
    if progress.tty {
        eprint!("\r\x1b[K");
    }
    Ok(Some(embedder))
}

/// A one-line progress meter with an estimate of the time left, drawn only
/// on a terminal.
struct Progress {
    start: Instant,
    tty: bool,
    last: f64,
}

impl Observer for Progress {
    fn now_ms(&self) -> f64 {
        self.start.elapsed().as_secs_f64() * 1000.0
    }

    fn progress(&mut self, stage: Stage, done: usize, total: usize) {
        let now = self.now_ms();
        if !self.tty || stage != Stage::Embed || total == 0 || (now - self.last < 200.0 && done < total) {
            return;
        }
        self.last = now;
        let left = if done == 0 { f64::NAN } else { now / done as f64 * (total - done) as f64 / 1000.0 };
        eprint!("\r\x1b[Kembedding {done}/{total} chunks, {left:.0} s left");
    }
}
