//! Reading `.zip` archives with the `zip` crate, entirely in memory.

use std::io::{Cursor, Read};

use crate::collect::{Entry, Walk, common_root};
use crate::{Archive, ArchiveError, ReadOptions, SkipReason};

/// Reads a zip archive held in memory. `progress(done, total)` is called as
/// entries are looked at. Only a zip whose central directory cannot be read
/// is an error; a damaged entry is skipped and reported.
pub fn read_zip(
    name: &str,
    bytes: &[u8],
    options: &ReadOptions<'_>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Archive, ArchiveError> {
    walk_zip(name, bytes, options, progress, Walk::Read)
}

/// Reads a zip, or only lists what it would keep (a survey), or reads only
/// its first files (a sample).
pub(crate) fn walk_zip(
    name: &str,
    bytes: &[u8],
    options: &ReadOptions<'_>,
    progress: &mut dyn FnMut(usize, usize),
    walk: Walk,
) -> Result<Archive, ArchiveError> {
    let mut zip = match zip::ZipArchive::new(Cursor::new(bytes)) {
        Ok(zip) => zip,
        Err(err) => {
            let detail = err.to_string();
            return walk_local_headers(name, bytes, options, progress, walk, &detail)
                .ok_or_else(|| crate::not_an_archive(name, bytes, detail));
        }
    };
    let total = zip.len();
    if total == 0 {
        return Err(ArchiveError::Empty { name: name.to_owned(), detail: "the zip has no entries".into() });
    }
    let names: Vec<String> = zip.file_names().filter_map(|name| name.ok().map(|n| n.into_owned())).collect();
    let root = common_root(names.iter().map(String::as_str));
    let mut collector = walk.collector(options, root);
    let looked_at = total.min(options.limits.max_entries);
    // The listing is read a second time only where a budget may leave files out.
    if options.limits.budget.is_some() {
        let sizes: Vec<(String, u64)> = (0..looked_at)
            .filter_map(|index| {
                let file = zip.by_index_raw(index).ok()?;
                (!file.is_dir() && !file.is_symlink()).then(|| Some((file.name().ok()?.into_owned(), file.size())))?
            })
            .collect();
        collector.admit_smallest_first(sizes.iter().map(|(name, size)| (name.as_str(), *size)));
    }
    for index in 0..looked_at {
        progress(index, total);
        let (raw_path, declared_size, encrypted) = match zip.by_index_raw(index) {
            Ok(file) if file.is_dir() => continue,
            Ok(file) if file.is_symlink() => {
                let path = file.name().map_or_else(|_| format!("entry #{index}"), |n| n.into_owned());
                collector.skip_entry(&path, SkipReason::Unsupported, "a symbolic link; links are not followed");
                continue;
            }
            Ok(file) => match file.name() {
                Ok(name) => (name.into_owned(), file.size(), file.encrypted()),
                Err(err) => {
                    collector.skip(format!("entry #{index}"), SkipReason::Unreadable, err.to_string());
                    continue;
                }
            },
            Err(err) => {
                collector.skip(format!("entry #{index}"), SkipReason::Unreadable, err.to_string());
                continue;
            }
        };
        let entry = Entry { raw_path: &raw_path, declared_size, encrypted };
        collector.offer(entry, |cap| {
            let file = zip.by_index(index).map_err(std::io::Error::other)?;
            let mut buf = Vec::with_capacity(declared_size.min(cap + 1) as usize);
            file.take(cap + 1).read_to_end(&mut buf)?;
            Ok(buf)
        });
        if collector.done() {
            break;
        }
    }
    if total > looked_at {
        collector.skip(
            format!("{} more entries", total - looked_at),
            SkipReason::Limit,
            format!("the archive has {total} entries; only the first {looked_at} were looked at"),
        );
    }
    if zip.has_duplicate_names() {
        collector.skip(
            format!("{name} (repeated names)"),
            SkipReason::Unreadable,
            "the archive lists some names more than once; one entry of each name was read".into(),
        );
    }
    progress(total, total);
    Ok(collector.finish())
}

/// A zip whose central directory is missing or damaged (a truncated
/// download, a zip cut short), read from its local headers from the start
/// until they end, as `unzip -FF` and 7-Zip do. `None` when that finds
/// nothing to keep; the caller then reports `why`, the central directory's
/// error.
fn walk_local_headers(
    name: &str,
    bytes: &[u8],
    options: &ReadOptions<'_>,
    progress: &mut dyn FnMut(usize, usize),
    walk: Walk,
    why: &str,
) -> Option<Archive> {
    if !bytes.starts_with(b"PK\x03\x04") {
        return None;
    }
    // First the names, for the shared folder; then the entries again, read.
    let mut names = Vec::new();
    let mut stream = Cursor::new(bytes);
    let ended = loop {
        if names.len() >= options.limits.max_entries {
            break None;
        }
        match zip::read::read_zipfile_from_stream(&mut stream) {
            Ok(Some(file)) if file.is_dir() => {}
            Ok(Some(file)) => names.push(String::from_utf8_lossy(file.name_raw()).into_owned()),
            Ok(None) => break None,
            Err(err) => break Some(err.to_string()),
        }
    };
    let mut collector = walk.collector(options, common_root(names.iter().map(String::as_str)));
    let mut stream = Cursor::new(bytes);
    // The same entries again, as far as the first pass got: folders are
    // among them, unnamed in `names`.
    let mut files = 0;
    while files < names.len() {
        progress(stream.position() as usize, bytes.len());
        let Ok(Some(mut file)) = zip::read::read_zipfile_from_stream(&mut stream) else { break };
        if file.is_dir() {
            continue;
        }
        files += 1;
        let raw_path = String::from_utf8_lossy(file.name_raw()).into_owned();
        let entry = Entry { raw_path: &raw_path, declared_size: file.size(), encrypted: file.encrypted() };
        collector.offer(entry, |cap| {
            let mut buf = Vec::with_capacity(file.size().min(cap + 1) as usize);
            (&mut file).take(cap + 1).read_to_end(&mut buf)?;
            Ok(buf)
        });
        if collector.done() {
            break;
        }
    }
    progress(bytes.len(), bytes.len());
    let count = names.len();
    let ended = ended.map_or_else(String::new, |e| format!(" (they end: {e})"));
    collector.skip(
        format!("the rest of {name}"),
        SkipReason::Unreadable,
        format!("the central directory is unreadable ({why}), so the archive may be cut short; {count} entries were read from their local headers{ended}"),
    );
    let archive = collector.finish();
    (!archive.files.is_empty() || !archive.listed.is_empty()).then_some(archive)
}
