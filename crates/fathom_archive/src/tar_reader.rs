//! Reading `.tar` and `.tar.gz` archives (npm and PyPI ship source this
//! way) from memory, with the `tar` and `flate2` crates, inflating as the
//! entries are read.

use std::cell::Cell;
use std::io::{ErrorKind, Read, Seek, SeekFrom, Take};

use crate::collect::{Collector, CommonRoot, Entry, Walk, common_root, human_bytes};
use crate::{Archive, ArchiveError, ReadOptions, SkipReason};

/// Reads a tar archive, gunzipping it as it goes when `gzipped`. The
/// decompressed size is capped at the limit on kept bytes plus the same
/// again for what is skipped, so a gzip bomb stops with an error instead of
/// spinning through it.
pub fn read_tar(
    name: &str,
    bytes: &[u8],
    gzipped: bool,
    options: &ReadOptions<'_>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Archive, ArchiveError> {
    walk_tar(name, bytes, gzipped, options, progress, Walk::Read)
}

/// Reads a tar, or only lists what it would keep (a survey), or reads only
/// its first files (a sample).
///
/// The paths' shared top folder must be known before the first file is
/// kept. Archives from registries and forges have one, named by their first
/// entry: one pass reads them, guessing the folder from that entry. When the
/// guess fails, or anything else is unusual (a damaged entry, the
/// decompression cap, the entry limit), a second reading starts over in two
/// passes, the first only for the names.
///
/// A sample reads the first files in one pass and stops: its root is the
/// guess, unchecked, and any damage just ends it.
fn walk_tar(
    name: &str,
    bytes: &[u8],
    gzipped: bool,
    options: &ReadOptions<'_>,
    progress: &mut dyn FnMut(usize, usize),
    walk: Walk,
) -> Result<Archive, ArchiveError> {
    match one_pass(bytes, gzipped, options, progress, walk) {
        Some(archive) => Ok(archive),
        None if matches!(walk, Walk::Sample(_)) => Ok(walk.collector(options, None).finish()),
        None => two_passes(name, bytes, gzipped, options, progress, walk),
    }
}

/// The cap on the inflated tar: the limit on kept bytes plus the same again
/// for what is skipped.
fn inflated_cap(gzipped: bool, options: &ReadOptions<'_>) -> u64 {
    if gzipped { options.limits.max_total_bytes.saturating_mul(2) } else { u64::MAX - 1 }
}

/// One pass, with the first entry's folder as the guessed root; `None` when
/// the archive needs [`two_passes`]. Progress counts the archive's bytes,
/// as the number of entries is not known ahead.
fn one_pass(
    bytes: &[u8],
    gzipped: bool,
    options: &ReadOptions<'_>,
    progress: &mut dyn FnMut(usize, usize),
    walk: Walk,
) -> Option<Archive> {
    let sample = matches!(walk, Walk::Sample(_));
    let consumed = Cell::new(0);
    let counted = Counted { bytes, consumed: &consumed };
    let mut archive = tar::Archive::new(stream(counted, gzipped, inflated_cap(gzipped, options)));
    let mut guess: Option<Collector<'_>> = None;
    let mut seen = CommonRoot::default();
    let mut shared = true; // whether every path so far is under one folder
    let mut files = 0;
    for entry in archive.entries_with_seek().ok()? {
        let mut entry = entry.ok()?;
        if special(entry.header().entry_type()).is_some() {
            return None; // listed as skipped by the second reading, which knows the root first
        }
        if !entry.header().entry_type().is_file() {
            continue;
        }
        files += 1;
        if files > options.limits.max_entries {
            return None;
        }
        progress(consumed.get(), bytes.len());
        let raw_path = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        shared &= seen.add(&raw_path);
        if !shared && !sample && guess.as_ref().is_some_and(|c| c.root().is_some()) {
            return None; // not every path is under the first one's folder
        }
        let collector = guess.get_or_insert_with(|| walk.collector(options, seen.root().map(str::to_owned)));
        offer(collector, &raw_path, &mut entry);
        if collector.done() {
            break;
        }
    }
    if archive.into_inner().limit() == 0 {
        return None; // over the cap: the second reading names it
    }
    let root = if shared { seen.root() } else { None };
    let collector = match guess {
        Some(collector) if sample || collector.root() == root => collector,
        Some(_) => return None, // the first path was unsafe, and the rest share a folder
        None => walk.collector(options, None),
    };
    progress(bytes.len(), bytes.len());
    Some(collector.finish())
}

/// What a tar entry that is neither a file nor a folder is, to say why it
/// was skipped.
fn special(kind: tar::EntryType) -> Option<&'static str> {
    Some(match kind {
        tar::EntryType::Symlink => "a symbolic link; links are not followed",
        tar::EntryType::Link => "a hard link; links are not followed",
        tar::EntryType::Char => "a character device",
        tar::EntryType::Block => "a block device",
        tar::EntryType::Fifo => "a named pipe (FIFO)",
        _ => return None,
    })
}

/// Offers a tar entry to the collector, which reads its body only if it
/// keeps it, and at most its cap and one byte more.
fn offer(collector: &mut Collector<'_>, raw_path: &str, entry: &mut tar::Entry<'_, impl Read>) {
    let declared_size = entry.header().size().unwrap_or(0);
    collector.offer(Entry { raw_path, declared_size, encrypted: false }, |cap| {
        let mut buf = Vec::with_capacity(declared_size.min(cap + 1) as usize);
        entry.take(cap + 1).read_to_end(&mut buf)?;
        Ok(buf)
    });
}

/// The archive's bytes, counting how many the reader has taken.
struct Counted<'a> {
    bytes: &'a [u8],
    consumed: &'a Cell<usize>,
}

impl Read for Counted<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.bytes.read(buf)?;
        self.consumed.set(self.consumed.get() + n);
        Ok(n)
    }
}

fn two_passes(
    name: &str,
    bytes: &[u8],
    gzipped: bool,
    options: &ReadOptions<'_>,
    progress: &mut dyn FnMut(usize, usize),
    walk: Walk,
) -> Result<Archive, ArchiveError> {
    let not_a_tar = |detail: String| ArchiveError::NotATar { name: name.to_owned(), detail };
    let cap = inflated_cap(gzipped, options);
    let damaged = |e: std::io::Error| match gzipped {
        true => not_a_tar(format!("gzip data is damaged: {e}")),
        false => not_a_tar(e.to_string()),
    };

    // First pass: the names, for the common root and the progress total.
    // Each pass streams the archive, gunzipping as it goes: the inflated
    // tar is never held whole, only the files kept.
    let mut names = Vec::new();
    let mut listing = tar::Archive::new(stream(bytes, gzipped, cap));
    let listed: Result<(), ArchiveError> = (|| {
        for entry in listing.entries_with_seek().map_err(damaged)? {
            let entry = entry.map_err(damaged)?;
            if entry.header().entry_type().is_file() {
                names.push(String::from_utf8_lossy(&entry.path_bytes()).into_owned());
            }
            if names.len() > options.limits.max_entries {
                break;
            }
        }
        Ok(())
    })();
    // Past the cap, or damaged: the files listed before that point are
    // read, and the rest is named as skipped; an archive with none kept is
    // refused (below).
    let over_cap = listing.into_inner().limit() == 0;
    let ended = match listed {
        _ if over_cap => Some(format!("it decompresses to more than {}", human_bytes(cap))),
        Err(ArchiveError::NotATar { detail, .. }) => Some(detail),
        Err(other) => return Err(other),
        Ok(()) => None,
    };
    let total = names.len();
    let root = common_root(names.iter().map(String::as_str));
    let mut collector = walk.collector(options, root);
    let looked_at = total.min(options.limits.max_entries);
    let mut archive = tar::Archive::new(stream(bytes, gzipped, cap));
    let mut index = 0;
    for entry in archive.entries_with_seek().map_err(|e| not_a_tar(e.to_string()))? {
        let mut entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                // A damaged header ends the stream: keep what was read. Where
                // the listing already ended there (the cap, or the damage),
                // the rest is named once, below, with the cause.
                if ended.is_none() {
                    collector.skip(format!("entry #{index}"), SkipReason::Unreadable, err.to_string());
                }
                break;
            }
        };
        if let Some(what) = special(entry.header().entry_type()) {
            let raw_path = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
            collector.skip_entry(&raw_path, SkipReason::Unsupported, what);
            continue;
        }
        if !entry.header().entry_type().is_file() {
            continue;
        }
        if index >= looked_at {
            break;
        }
        progress(index, total);
        index += 1;
        let raw_path = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        offer(&mut collector, &raw_path, &mut entry);
    }
    if total > looked_at {
        collector.skip(
            format!("{} more entries", total - looked_at),
            SkipReason::Limit,
            format!("the archive has over {looked_at} entries; only the first {looked_at} were looked at"),
        );
    }
    progress(total, total);
    let Some(why) = ended else { return Ok(collector.finish()) };
    let reason = if over_cap { SkipReason::Limit } else { SkipReason::Unreadable };
    let detail = format!("{why}; the {total} files before that point were looked at");
    collector.skip(format!("the rest of {name}"), reason, detail);
    let archive = collector.finish();
    // Nothing readable came before the bomb or the damage: that is the answer.
    if archive.files.is_empty() && archive.listed.is_empty() { Err(not_a_tar(why)) } else { Ok(archive) }
}

/// The tar stream: the bytes as they are, or gunzipped as they are read; at
/// most `cap + 1` bytes, so reading past the cap shows as an exhausted limit.
fn stream<'a>(bytes: impl Read + 'a, gzipped: bool, cap: u64) -> Forward<Take<Box<dyn Read + 'a>>> {
    let inner: Box<dyn Read + 'a> = match gzipped {
        true => Box::new(flate2::read::MultiGzDecoder::new(bytes)),
        false => Box::new(bytes),
    };
    Forward { inner: inner.take(cap + 1), at: 0, scratch: vec![0; SKIP_BUFFER].into_boxed_slice() }
}

const SKIP_BUFFER: usize = 32 << 10;

/// A stream that can "seek" forward only, by reading and dropping the bytes
/// through one buffer kept for the whole archive. `tar` skips the bodies of
/// the entries not read by seeking when it can; when it cannot, it zeroes a
/// fresh 32 KB buffer each time it looks for a header, even with nothing to
/// skip (Django's sdist: 39,986 times for its 9,996 entries, 0.66 G
/// instructions, a third of reading it).
struct Forward<R> {
    inner: R,
    /// Bytes read or skipped so far: the position `tar` is told.
    at: u64,
    scratch: Box<[u8]>,
}

impl<R> Forward<Take<R>> {
    /// What is left of the cap on the inflated tar.
    fn limit(&self) -> u64 {
        self.inner.limit()
    }
}

impl<R: Read> Read for Forward<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.at += n as u64;
        Ok(n)
    }
}

impl<R: Read> Seek for Forward<R> {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        let mut ahead = match pos {
            SeekFrom::Current(ahead) if ahead >= 0 => ahead as u64,
            _ => return Err(std::io::Error::new(ErrorKind::Unsupported, "a tar stream is only skipped forward")),
        };
        while ahead > 0 {
            let want = ahead.min(self.scratch.len() as u64) as usize;
            let n = self.inner.read(&mut self.scratch[..want])?;
            if n == 0 {
                return Err(std::io::Error::new(ErrorKind::UnexpectedEof, "unexpected end of the archive in an entry"));
            }
            self.at += n as u64;
            ahead -= n as u64;
        }
        Ok(self.at)
    }
}

/// What an archive's first bytes say it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Zip,
    TarGz,
    Tar,
}

impl Format {
    /// Zip's local header or end record, gzip's magic, or `ustar` at 257; an
    /// unknown start is read as a zip, whose error then names the problem.
    pub fn sniff(bytes: &[u8]) -> Format {
        if bytes.starts_with(&[0x1f, 0x8b]) {
            Format::TarGz
        } else if bytes.get(257..262) == Some(b"ustar") {
            Format::Tar
        } else {
            Format::Zip
        }
    }
}

/// Reads a zip, tar or tar.gz archive, whichever `bytes` hold.
pub fn read_archive(
    name: &str,
    bytes: &[u8],
    options: &ReadOptions<'_>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Archive, ArchiveError> {
    walk_archive(name, bytes, options, progress, Walk::Read)
}

/// Lists what reading the archive would keep, by declared size, without
/// reading any file: what a memory budget is checked against.
pub fn survey_archive(name: &str, bytes: &[u8], options: &ReadOptions<'_>) -> Result<crate::Survey, ArchiveError> {
    let archive = walk_archive(name, bytes, options, &mut |_, _| {}, Walk::List)?;
    let (over_budget, over_budget_bytes) = archive.over_budget;
    Ok(crate::Survey { over_budget, over_budget_bytes, ..crate::Survey::new(&archive.listed) })
}

/// The first files reading the archive would keep, about `bytes_wanted` of
/// them, read without inflating the rest: what parse workers can start on
/// while the whole archive is read. The paths are under the first entry's
/// folder, a guess that the full read may prove wrong; a damaged or unusual
/// archive gives a smaller sample, or none, never an error.
pub fn sample_archive(bytes: &[u8], options: &ReadOptions<'_>, bytes_wanted: u64) -> Archive {
    let walk = Walk::Sample(bytes_wanted);
    walk_archive("sample", bytes, options, &mut |_, _| {}, walk)
        .unwrap_or_else(|_| walk.collector(options, None).finish())
}

fn walk_archive(
    name: &str,
    bytes: &[u8],
    options: &ReadOptions<'_>,
    progress: &mut dyn FnMut(usize, usize),
    walk: Walk,
) -> Result<Archive, ArchiveError> {
    match Format::sniff(bytes) {
        Format::Zip => crate::zip_reader::walk_zip(name, bytes, options, progress, walk),
        Format::TarGz => walk_tar(name, bytes, true, options, progress, walk),
        Format::Tar => walk_tar(name, bytes, false, options, progress, walk),
    }
}

/// Reads files handed over one by one (a folder dropped on the page):
/// `(path, bytes)` pairs, paths slash-separated, the shared top folder
/// stripped as an archive's is.
pub fn read_files(
    files: Vec<(String, Vec<u8>)>,
    options: &ReadOptions<'_>,
    progress: &mut dyn FnMut(usize, usize),
) -> Archive {
    let root = common_root(files.iter().map(|(p, _)| p.as_str()));
    let mut collector = Collector::new(options, root);
    let total = files.len();
    for (index, (path, bytes)) in files.into_iter().enumerate() {
        if index >= options.limits.max_entries {
            collector.skip(
                format!("{} more files", total - index),
                SkipReason::Limit,
                format!("{total} files were given; only the first {index} were looked at"),
            );
            break;
        }
        progress(index, total);
        let entry = Entry { raw_path: &path, declared_size: bytes.len() as u64, encrypted: false };
        collector.offer(entry, |cap| Ok(bytes.into_iter().take(cap as usize + 1).collect()));
    }
    progress(total, total);
    collector.finish()
}
