//! The one place a split bundle's bytes come in.
//!
//! A split bundle ([`crate::split`]) is a directory a static host serves as
//! it is: `root.fathom`, the only fixed name, and items under `s/`, so a
//! host and a browser may keep them forever. Every item is one value in
//! postcard's encoding, gzipped (a host sends it as it is). Items come in
//! two kinds:
//!
//! - **named by their hash**: a reference carries the hash of the item's
//!   bytes, their length and their length inflated;
//! - **placed**: named by the bundle's tag (a hash of all placed items) and
//!   the item's family and place, so the root lists no hash for each, and
//!   checked by a header of their own (the length and checksum of what
//!   follows); their referrer bounds how far they inflate.
//!
//! Placed items of a family whose items are all about one size (a chunk's
//! row, a piece of the table) are *packed*: each in a slot of the family's
//! stride, zeros after it, in pack files of at most [`PACK_BYTES`], read by
//! Range requests ([`Span`]), so a project of 50,000 files is not hundreds
//! of thousands of files on its host.
//!
//! Either way a missing, truncated or altered item, or one that would
//! inflate past its bound, is refused by name before anything reads it
//! ([`StoreError`]).
//! Search, graph and query code never see these bytes: they read decoded
//! values through the index.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// How many bytes of an item's SHA-256 name it. 64 bits: a root lists
/// thousands of items and each costs the root its name, and what the names
/// guard against is damage and stale copies (a host that serves a forged
/// item can serve a forged root too).
pub const HASH: usize = 8;

/// Where an item is, and what its bytes must be: the first [`HASH`] bytes
/// of the SHA-256 of the stored (gzipped) bytes, their length, and the
/// length of the postcard encoding they inflate to. A placed item
/// ([`ItemRef::placed`]) has `bytes` 0 and `plain` the most it may inflate
/// to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ItemRef {
    pub hash: [u8; HASH],
    pub bytes: u32,
    pub plain: u32,
}

impl ItemRef {
    /// The item's path inside the bundle's directory.
    pub fn path(&self) -> String {
        format!("s/{}.bin", self.hex())
    }

    /// A placed item's reference: its name from the bundle's tag, its
    /// family and its place; `max` bounds its inflated length.
    pub fn placed(tag: &[u8; HASH], family: u8, at: u32, max: u32) -> ItemRef {
        let mut name = Sha256::new();
        name.update(tag);
        name.update([family]);
        name.update(at.to_le_bytes());
        let hash = name.finalize()[..HASH].try_into().expect("a SHA-256 is 32 bytes");
        ItemRef { hash, bytes: 0, plain: max }
    }

    /// Whether it is placed, and checks itself.
    pub fn is_placed(&self) -> bool {
        self.bytes == 0
    }

    /// Its hash in lower-case hex, as its path names it.
    pub fn hex(&self) -> String {
        self.hash.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// A reference from its hash in hex ([`ItemRef::hex`]) and its lengths;
    /// `None` where the hex is not a hash.
    pub fn from_hex(hex: &str, bytes: u32, plain: u32) -> Option<ItemRef> {
        let mut hash = [0u8; HASH];
        if hex.len() != 2 * HASH {
            return None;
        }
        for (at, byte) in hash.iter_mut().enumerate() {
            *byte = u8::from_str_radix(hex.get(2 * at..2 * at + 2)?, 16).ok()?;
        }
        Some(ItemRef { hash, bytes, plain })
    }
}

/// The most a pack holds: under the 25 MiB a file that the strictest
/// common static host (Cloudflare Pages) serves, and small enough that a
/// page keeping a bundle offline holds one pack at a time in memory.
pub const PACK_BYTES: u64 = 8 << 20;

/// Where a packed item is: bytes `offset..offset + length` of its pack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Span {
    pub pack: ItemRef,
    pub offset: u64,
    pub length: u32,
}

/// Why an item or a root was refused. Each names what it was and where.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StoreError {
    #[error("{what} ({path}) is missing")]
    Missing { what: String, path: String },
    #[error("{what} ({path}) is truncated: {got} bytes of {expected}")]
    Truncated { what: String, path: String, got: usize, expected: usize },
    #[error("{what} ({path}) was altered: its bytes do not match the hash that checks them")]
    Altered { what: String, path: String },
    #[error("{path} answered with an HTML page, not {what}: is the bundle's path right?")]
    Html { what: String, path: String },
    #[error("{what} ({path}) is not a split bundle's: {cause}")]
    Undecodable { what: String, path: String, cause: String },
    #[error("{path}: {cause}")]
    Version { path: String, cause: String },
}

/// Encodes `value` as an item: its bytes and the reference to them.
pub fn seal<T: Serialize + ?Sized>(value: &T) -> (ItemRef, Vec<u8>) {
    let plain = postcard::to_allocvec(value).expect("every stored type has a postcard form");
    let mut gzip = flate2::write::GzEncoder::new(Vec::with_capacity(plain.len() / 3), flate2::Compression::best());
    gzip.write_all(&plain).expect("writing to memory");
    let bytes = gzip.finish().expect("writing to memory");
    let hash: [u8; HASH] = Sha256::digest(&bytes)[..HASH].try_into().expect("a SHA-256 is 32 bytes");
    (ItemRef { hash, bytes: bytes.len() as u32, plain: plain.len() as u32 }, bytes)
}

/// A placed item's header: the length of the gzipped bytes after it, and
/// their xxh3-64.
const PLACED_HEADER: usize = 12;

/// Encodes `value` as a placed item: its bytes, their checksum (which the
/// bundle's tag is made of) and its inflated length.
pub fn seal_placed<T: Serialize + ?Sized>(value: &T) -> (Vec<u8>, u64, u32) {
    let (item, gzipped) = seal(value);
    let (bytes, checksum) = with_header(&gzipped, 0);
    (bytes, checksum, item.plain)
}

/// A placed item's bytes: the header (the body's length, with `flags` in
/// its top bit, and the body's xxh3-64), then the body; and the checksum.
fn with_header(body: &[u8], flags: u32) -> (Vec<u8>, u64) {
    let checksum = xxhash_rust::xxh3::xxh3_64(body);
    let mut bytes = Vec::with_capacity(PLACED_HEADER + body.len());
    bytes.extend_from_slice(&(body.len() as u32 | flags).to_le_bytes());
    bytes.extend_from_slice(&checksum.to_le_bytes());
    bytes.extend_from_slice(body);
    (bytes, checksum)
}

/// A placed item's header says, in its length's top bit, that the body is
/// postcard as it is, not gzipped: a packed item (a row of int8, which gzip
/// barely shrinks, and which it makes vary in length, so the slot be the
/// longest).
const RAW: u32 = 1 << 31;

/// Encodes `value` as a packed item ([`Span`]): as [`seal_placed`] does, its
/// body not gzipped.
pub fn seal_packed<T: Serialize + ?Sized>(value: &T) -> (Vec<u8>, u64, u32) {
    let plain = postcard::to_allocvec(value).expect("every stored type has a postcard form");
    let (bytes, checksum) = with_header(&plain, RAW);
    (bytes, checksum, plain.len() as u32)
}

/// Decodes an item's `bytes`, checked against its reference first (a
/// placed item, against its own header).
pub fn open<T: DeserializeOwned>(what: &str, item: &ItemRef, bytes: &[u8]) -> Result<T, StoreError> {
    let (gzipped, raw) = checked(what, item, bytes)?;
    let path = item.path();
    let err = |cause: String| StoreError::Undecodable { what: what.to_owned(), path: path.clone(), cause };
    if raw {
        if gzipped.len() > item.plain as usize {
            return Err(err(format!("it holds more than the {} bytes its family's items hold at most", item.plain)));
        }
        return postcard::from_bytes(gzipped).map_err(|e| err(e.to_string()));
    }
    // Inflated no further than the reference says: a forged item cannot
    // ask for more memory than its referrer allowed (a placed item's, than
    // the most its family's items hold). A placed item's room is what its
    // gzip trailer states, trusted no further than that bound: reserved
    // once, not doubled as it inflates.
    let stated = gzipped.last_chunk::<4>().map_or(0, |size| u32::from_le_bytes(*size));
    let mut plain = Vec::with_capacity(if item.is_placed() { stated.min(item.plain) } else { item.plain } as usize);
    flate2::read::GzDecoder::new(gzipped)
        .take(u64::from(item.plain) + 1)
        .read_to_end(&mut plain)
        .map_err(|e| err(format!("it does not inflate: {e}")))?;
    if item.is_placed() && plain.len() > item.plain as usize {
        return Err(err(format!("it inflates past the {} bytes its family's items hold at most", item.plain)));
    }
    if !item.is_placed() && plain.len() != item.plain as usize {
        return Err(err(format!("it inflates to {} bytes, not {}", plain.len(), item.plain)));
    }
    postcard::from_bytes(&plain).map_err(|e| err(e.to_string()))
}

/// Checks an item's `bytes` against its reference (a placed item, against
/// its own header) without inflating them: what is kept for later (an
/// offline copy) is checked as what is read now. Returns the gzipped body.
pub fn check<'b>(what: &str, item: &ItemRef, bytes: &'b [u8]) -> Result<&'b [u8], StoreError> {
    checked(what, item, bytes).map(|(body, _)| body)
}

/// [`check`], and whether the body is postcard as it is (a packed item's).
fn checked<'b>(what: &str, item: &ItemRef, bytes: &'b [u8]) -> Result<(&'b [u8], bool), StoreError> {
    let path = item.path();
    if looks_like_html(bytes) {
        return Err(StoreError::Html { what: what.to_owned(), path });
    }
    if item.is_placed() {
        let Some((header, gzipped)) = bytes.split_at_checked(PLACED_HEADER) else {
            return Err(StoreError::Truncated {
                what: what.to_owned(),
                path,
                got: bytes.len(),
                expected: PLACED_HEADER,
            });
        };
        let word = u32::from_le_bytes(header[..4].try_into().expect("4 bytes"));
        let length = (word & !RAW) as usize;
        let checksum = u64::from_le_bytes(header[4..].try_into().expect("8 bytes"));
        if gzipped.len() < length {
            let (got, expected) = (bytes.len(), PLACED_HEADER + length);
            return Err(StoreError::Truncated { what: what.to_owned(), path, got, expected });
        }
        // A packed item's slot is zeros after it.
        let (gzipped, padding) = gzipped.split_at(length);
        if padding.iter().any(|&b| b != 0) || xxhash_rust::xxh3::xxh3_64(gzipped) != checksum {
            return Err(StoreError::Altered { what: what.to_owned(), path });
        }
        return Ok((gzipped, word & RAW != 0));
    }
    if bytes.len() < item.bytes as usize {
        return Err(StoreError::Truncated {
            what: what.to_owned(),
            path,
            got: bytes.len(),
            expected: item.bytes as usize,
        });
    }
    if bytes.len() > item.bytes as usize || Sha256::digest(bytes)[..HASH] != item.hash {
        return Err(StoreError::Altered { what: what.to_owned(), path });
    }
    Ok((bytes, false))
}

/// What a static host sends for a path it does not have, often with 200.
pub(crate) fn looks_like_html(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(256)];
    let text = String::from_utf8_lossy(head).trim_start().to_ascii_lowercase();
    text.starts_with("<!doctype html")
        || text.starts_with("<html")
        || text.starts_with("<head")
        || text.starts_with("<body")
}

/// A split bundle on a local disk, for the CLI and the tests: items are read
/// as they are asked for, each checked as a fetched one is.
pub struct DirStore {
    dir: PathBuf,
}

impl DirStore {
    pub fn new(dir: &Path) -> DirStore {
        DirStore { dir: dir.to_owned() }
    }

    /// The root's bytes.
    pub fn root(&self) -> Result<Vec<u8>, StoreError> {
        let path = self.dir.join(crate::split::ROOT);
        std::fs::read(&path).map_err(|_| StoreError::Missing {
            what: "the split bundle's root".into(),
            path: path.display().to_string(),
        })
    }

    /// An item's bytes as stored, not yet checked: its file's, or a packed
    /// item's slot of its pack.
    pub fn bytes(&self, what: &str, item: &ItemRef, span: Option<&Span>) -> Result<Vec<u8>, StoreError> {
        use std::io::{Seek, SeekFrom};
        let path = self.dir.join(span.map_or(item, |s| &s.pack).path());
        let missing = || StoreError::Missing { what: what.to_owned(), path: path.display().to_string() };
        let Some(span) = span else { return std::fs::read(&path).map_err(|_| missing()) };
        let mut file = std::fs::File::open(&path).map_err(|_| missing())?;
        file.seek(SeekFrom::Start(span.offset)).map_err(|_| missing())?;
        let mut bytes = Vec::with_capacity(span.length as usize);
        file.take(u64::from(span.length)).read_to_end(&mut bytes).map_err(|_| missing())?;
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_reads_back_and_any_change_to_it_is_named() {
        let value: Vec<(u32, String)> = (0..500).map(|i| (i, format!("item {i}"))).collect();
        let (item, bytes) = seal(&value);
        assert_eq!(open::<Vec<(u32, String)>>("postings", &item, &bytes).unwrap(), value);
        assert!(item.path().starts_with("s/") && item.path().len() == "s/.bin".len() + 2 * HASH);
        // The page hands a reference back by its hex: the same reference, and nothing else.
        assert_eq!(ItemRef::from_hex(&item.hex(), item.bytes, item.plain), Some(item));
        assert_eq!(ItemRef::from_hex(&item.hex()[1..], item.bytes, item.plain), None);
        assert_eq!(ItemRef::from_hex(&"zz".repeat(HASH), item.bytes, item.plain), None);

        let truncated = open::<Vec<(u32, String)>>("postings", &item, &bytes[..bytes.len() - 3]).unwrap_err();
        assert!(matches!(truncated, StoreError::Truncated { got, expected, .. } if got + 3 == expected), "{truncated}");
        let mut altered = bytes.clone();
        altered[bytes.len() / 2] ^= 1;
        let error = open::<Vec<(u32, String)>>("postings", &item, &altered).unwrap_err();
        assert!(matches!(error, StoreError::Altered { .. }));
        assert!(error.to_string().contains("postings") && error.to_string().contains(&item.path()), "{error}");
        let html = open::<Vec<(u32, String)>>("postings", &item, b"<!DOCTYPE html><title>404</title>").unwrap_err();
        assert!(matches!(html, StoreError::Html { .. }), "{html}");
    }

    #[test]
    fn a_placed_item_checks_itself() {
        let value: Vec<(u32, String)> = (0..500).map(|i| (i, format!("item {i}"))).collect();
        let (bytes, _, plain) = seal_placed(&value);
        let tag = [3u8; HASH];
        let item = ItemRef::placed(&tag, b'n', 7, plain);
        assert!(item.is_placed() && item.path().starts_with("s/"));
        assert_ne!(item, ItemRef::placed(&tag, b'n', 8, plain), "each place its own name");
        assert_ne!(item, ItemRef::placed(&[4u8; HASH], b'n', 7, plain), "each tag its own names");
        assert_eq!(open::<Vec<(u32, String)>>("a page", &item, &bytes).unwrap(), value);
        let truncated = open::<Vec<(u32, String)>>("a page", &item, &bytes[..bytes.len() - 3]).unwrap_err();
        assert!(matches!(truncated, StoreError::Truncated { got, expected, .. } if got + 3 == expected), "{truncated}");
        let mut altered = bytes.clone();
        altered[bytes.len() / 2] ^= 1;
        let error = open::<Vec<(u32, String)>>("a page", &item, &altered).unwrap_err();
        assert!(matches!(error, StoreError::Altered { .. }), "{error}");
        // Packed: not gzipped, and in a pack's slot, zeros may follow it;
        // anything else is a change.
        let (packed, _, _) = seal_packed(&value);
        assert_eq!(packed[PLACED_HEADER..], postcard::to_allocvec(&value).unwrap(), "postcard as it is");
        assert_eq!(open::<Vec<(u32, String)>>("a row", &item, &packed).unwrap(), value);
        let error = open::<Vec<(u32, String)>>("a row", &ItemRef::placed(&tag, b'n', 7, plain - 1), &packed);
        assert!(error.unwrap_err().to_string().contains("holds more than"));
        let mut altered = packed.clone();
        altered[PLACED_HEADER + 40] ^= 1;
        let error = open::<Vec<(u32, String)>>("a row", &item, &altered).unwrap_err();
        assert!(matches!(error, StoreError::Altered { .. }), "{error}");
        let mut slot = bytes.clone();
        slot.resize(bytes.len() + 9, 0);
        assert_eq!(open::<Vec<(u32, String)>>("a row", &item, &slot).unwrap(), value);
        *slot.last_mut().unwrap() = 1;
        let error = open::<Vec<(u32, String)>>("a row", &item, &slot).unwrap_err();
        assert!(matches!(error, StoreError::Altered { .. }), "{error}");
        let bound = ItemRef::placed(&tag, b'n', 7, plain - 1);
        let error = open::<Vec<(u32, String)>>("a page", &bound, &bytes).unwrap_err();
        assert!(error.to_string().contains("inflates past"), "{error}");
    }

    #[test]
    fn an_item_that_inflates_past_its_reference_is_refused() {
        // A reference whose hash matches bytes that inflate to far more than
        // it says: what a forged referrer and item would be.
        let (honest, bytes) = seal(&vec![0u8; 1 << 20]);
        let forged = ItemRef { plain: 1000, ..honest };
        let error = open::<Vec<u8>>("text", &forged, &bytes).unwrap_err();
        assert!(error.to_string().contains("inflates to 1001 bytes, not 1000"), "{error}");
    }
}
