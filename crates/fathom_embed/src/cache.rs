//! Embeddings kept on disk by the hash of the chunk they embed, so
//! re-indexing a changed repository embeds only what changed.
//!
//! One append-only file per model: an 8-byte magic, then records of a
//! 16-byte content hash and [`DIM`] little-endian floats. A record cut short
//! by a crash is ignored on load and overwritten by the next append.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::{DIM, asset};

const MAGIC: &[u8; 8] = b"FTHMEMB1";
const RECORD: usize = 16 + DIM * 4;

pub type Key = [u8; 16];

/// Parses a chunk hash (32 hex digits) into a cache key.
pub fn key(hex: &str) -> Option<Key> {
    let mut out = [0u8; 16];
    if hex.len() != 32 {
        return None;
    }
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

pub struct DiskCache {
    path: PathBuf,
    entries: HashMap<Key, Box<[f32]>>,
    /// Bytes of whole records on disk; appends start here.
    valid_len: u64,
    pending: Vec<(Key, Box<[f32]>)>,
}

impl DiskCache {
    /// The cache for the current model under `dir`.
    pub fn open(dir: &Path) -> std::io::Result<DiskCache> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join(format!("{}.bin", &asset::WEIGHTS_SHA256[..16]));
        let mut entries = HashMap::new();
        let mut valid_len = 0;
        if let Ok(mut file) = File::open(&path) {
            let mut bytes = Vec::new();
            file.read_to_end(&mut bytes)?;
            if bytes.starts_with(MAGIC) {
                valid_len = MAGIC.len() as u64;
                for record in bytes[MAGIC.len()..].chunks_exact(RECORD) {
                    let key: Key = record[..16].try_into().expect("16 bytes");
                    let vector: Box<[f32]> =
                        record[16..].chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
                    entries.insert(key, vector);
                    valid_len += RECORD as u64;
                }
            }
        }
        Ok(DiskCache { path, entries, valid_len, pending: Vec::new() })
    }

    /// `~/.cache/fathom/embeddings`, or `$FATHOM_CACHE_DIR/embeddings`.
    pub fn default_dir() -> PathBuf {
        let base = std::env::var_os("FATHOM_CACHE_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| Path::new(&std::env::var_os("HOME").unwrap_or_default()).join(".cache/fathom"));
        base.join("embeddings")
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn get(&self, key: &Key) -> Option<&[f32]> {
        self.entries.get(key).map(|v| &v[..])
    }

    /// Remembers a vector; [`DiskCache::flush`] writes it.
    pub fn insert(&mut self, key: Key, vector: &[f32]) {
        if vector.len() == DIM && !self.entries.contains_key(&key) {
            self.entries.insert(key, vector.into());
            self.pending.push((key, vector.into()));
        }
    }

    pub fn flush(&mut self) -> std::io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let file = OpenOptions::new().create(true).truncate(false).read(true).write(true).open(&self.path)?;
        let mut writer = BufWriter::new(file);
        if self.valid_len < MAGIC.len() as u64 {
            writer.seek(SeekFrom::Start(0))?;
            writer.write_all(MAGIC)?;
            self.valid_len = MAGIC.len() as u64;
        }
        writer.seek(SeekFrom::Start(self.valid_len))?;
        for (key, vector) in self.pending.drain(..) {
            writer.write_all(&key)?;
            for x in vector.iter() {
                writer.write_all(&x.to_le_bytes())?;
            }
            self.valid_len += RECORD as u64;
        }
        let file = writer.into_inner().map_err(|e| e.into_error())?;
        file.set_len(self.valid_len)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_survive_a_reopen_and_a_torn_record_is_dropped() {
        let dir = std::env::temp_dir().join(format!("fathom-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let a = key("000102030405060708090a0b0c0d0e0f").unwrap();
        let b = key("ffeeddccbbaa99887766554433221100").unwrap();
        let va: Vec<f32> = (0..DIM).map(|i| i as f32).collect();
        let mut cache = DiskCache::open(&dir).unwrap();
        cache.insert(a, &va);
        cache.flush().unwrap();
        // A crash halfway through a second record.
        let path = cache.path.clone();
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(&b).unwrap();
        file.write_all(&[0u8; 100]).unwrap();
        drop(file);
        let mut cache = DiskCache::open(&dir).unwrap();
        assert_eq!(cache.len(), 1);
        assert_eq!(cache.get(&a).unwrap(), &va[..]);
        cache.insert(b, &va);
        cache.flush().unwrap();
        let cache = DiskCache::open(&dir).unwrap();
        assert_eq!(cache.len(), 2);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), (8 + 2 * RECORD) as u64);
        assert!(key("xyz").is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
