//! A split bundle's directory (`fathom search DIR/ …`, `fathom mcp DIR/`):
//! one reader over the directory's items, asked a question at a time. It
//! keeps what it fetched, so a later question reads only what is new, and
//! forgets it all when it holds more than it may.

use std::path::Path;

use anyhow::Result;
use fathom_engine::human_bytes;
use fathom_engine::split::{Costly, SplitReader, Step};
use fathom_engine::store::DirStore;

/// What a Cypher query over a split bundle may fetch unless its caller
/// allows more, in MB: the reader's allowance, as the page asks before it
/// fetches more.
pub const FETCH_MB: f64 = fathom_engine::split::ALLOWANCE as f64 / 1e6;

/// `mb` megabytes in bytes; below none, none.
pub fn megabytes(mb: f64) -> u64 {
    (mb.max(0.0) * 1e6) as u64
}

/// Why a question was not answered: it would fetch more than `limit` (the
/// setting that raises it, as its caller names it) allows.
pub fn refusal(costly: &Costly, limit: &str) -> String {
    format!(
        "this query would fetch at least {} more of the split bundle ({} items in its next step), past {limit}: name the nodes it starts from (`{{name: '…'}}`), or raise the limit",
        human_bytes(costly.bytes),
        costly.items
    )
}

pub struct SplitDir {
    store: DirStore,
    /// Where the root is, for errors, and its bytes: a reader that forgets
    /// opens again from them.
    path: String,
    root: Vec<u8>,
    /// The model assets' tokenizer, where the reader searches by meaning
    /// (the bundle has vectors and the tokenizer read).
    tokenizer: Option<Vec<u8>>,
    reader: SplitReader,
    /// How many waves the last question took.
    waves: usize,
}

impl SplitDir {
    /// Opens the split bundle in `dir`. With `meaning`, a bundle with
    /// vectors is searched by meaning too, its queries embedded with the
    /// tokenizer of the installed model assets; without the tokenizer, it
    /// says so on stderr and searches by words.
    pub fn open(dir: &Path, meaning: bool) -> Result<SplitDir> {
        let store = DirStore::new(dir);
        let root = store.root()?;
        let path = dir.join(fathom_engine::split::ROOT).display().to_string();
        let mut reader = SplitReader::open(&path, &root)?;
        let mut tokenizer = None;
        if meaning && reader.root().meaning.is_some() {
            let file = fathom_embed::asset::default_dir().join(fathom_embed::asset::TOKENIZER_FILE);
            let read = std::fs::read(&file).map_err(|e| format!("cannot read `{}`: {e}", file.display()));
            match read.and_then(|bytes| reader.read_meaning(&bytes).map(|()| bytes)) {
                Ok(bytes) => tokenizer = Some(bytes),
                Err(why) => eprintln!("fathom: searching by words alone: {why}"),
            }
        }
        Ok(SplitDir { store, path, root, tokenizer, reader, waves: 0 })
    }

    /// The root's size on disk.
    pub fn root_bytes(&self) -> u64 {
        self.root.len() as u64
    }

    /// Answers `step`, fetching at most `allowed` bytes for it: a wave past
    /// that is not fetched, and the answer is what it would cost.
    pub fn ask<T>(
        &mut self,
        allowed: u64,
        step: impl FnMut(&mut SplitReader) -> Step<T>,
    ) -> Result<std::result::Result<T, Costly>> {
        let store = &self.store;
        let fetch = |need: &fathom_engine::split::Need| store.bytes(&need.what, &need.item, need.span.as_ref());
        match fathom_engine::split::drive_within(&mut self.reader, fetch, step, allowed)? {
            Ok((answer, waves)) => {
                self.waves = waves;
                Ok(Ok(answer))
            }
            Err(costly) => Ok(Err(costly)),
        }
    }

    /// Forgets everything fetched once this process holds more than `most`
    /// bytes of heap (what it read, inflated and decoded, not the bytes it
    /// fetched; those, where the allocator counts nothing): the next
    /// question starts from the root.
    pub fn forget_past(&mut self, most: u64) -> Result<()> {
        let held = fathom_engine::heap::live().unwrap_or(self.reader.fetched().bytes);
        if held <= most || self.reader.fetched().items == 0 {
            return Ok(());
        }
        let mut reader = SplitReader::open(&self.path, &self.root)?;
        if let Some(tokenizer) = &self.tokenizer {
            reader.read_meaning(tokenizer).map_err(anyhow::Error::msg)?;
        }
        self.reader = reader;
        Ok(())
    }

    /// What the reader holds, root included, by family, and how many waves
    /// the last question took.
    pub fn report(&self) -> String {
        let fetched = self.reader.fetched();
        format!(
            "read {} items ({}) in {} waves: postings {}, names {}, node pages {}, edge runs {}, more edges {}, files {}, meaning {}, summary {}",
            fetched.items + 1,
            human_bytes(fetched.bytes + self.root_bytes()),
            self.waves,
            human_bytes(fetched.postings),
            human_bytes(fetched.names),
            human_bytes(fetched.nodes),
            human_bytes(fetched.edges),
            human_bytes(fetched.more),
            human_bytes(fetched.files),
            human_bytes(fetched.meaning),
            human_bytes(fetched.summary)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that holds more than it may forgets it all and answers
    /// again from the root; one within its bound keeps what it read.
    #[test]
    fn a_reader_past_what_it_may_hold_forgets_and_answers_again() {
        struct Still;
        impl fathom_engine::Observer for Still {
            fn now_ms(&self) -> f64 {
                0.0
            }
        }
        let text = b"def add_item(cart, item):\n    cart.append(item)\n    return cart\n".to_vec();
        let files = vec![("shop/cart.py".to_owned(), text)];
        let index = fathom_engine::index_files("shop", files, &fathom_engine::Options::default(), &mut Still);
        let dir = std::env::temp_dir().join(format!("fathom-split-dir-{}", std::process::id()));
        index.to_split().write(&dir).unwrap();
        let mut split = SplitDir::open(&dir, false).unwrap();
        let options = fathom_engine::SearchOptions::default();
        let search = |split: &mut SplitDir| {
            let answer = split.ask(u64::MAX, |r| r.search_step("add_item", &options)).unwrap().unwrap();
            serde_json::to_value(answer).unwrap()
        };
        let first = search(&mut split);
        let held = split.reader.fetched();
        assert!(held.items > 0);
        split.forget_past(u64::MAX).unwrap();
        assert_eq!(split.reader.fetched(), held, "within its bound: kept");
        split.forget_past(0).unwrap();
        assert_eq!(split.reader.fetched().items, 0, "past it: forgotten");
        assert_eq!(search(&mut split), first);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
