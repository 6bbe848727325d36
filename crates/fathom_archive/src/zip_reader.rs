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
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|source| ArchiveError::NotAZip { name: name.to_owned(), source })?;
    let total = zip.len();
    let names: Vec<String> = zip.file_names().filter_map(|name| name.ok().map(|n| n.into_owned())).collect();
    let root = common_root(names.iter().map(String::as_str));
    let mut collector = walk.collector(options, root);
    let looked_at = total.min(options.limits.max_entries);
    for index in 0..looked_at {
        progress(index, total);
        let (raw_path, declared_size, encrypted) = match zip.by_index_raw(index) {
            Ok(file) if file.is_dir() || file.is_symlink() => continue,
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
    progress(total, total);
    Ok(collector.finish())
}
