//! Reading a directory on disk, honouring `.gitignore` (native builds only).

use std::io::Read;
use std::path::Path;

use crate::collect::{Collector, Entry};
use crate::rules::vendored_component;
use crate::{Archive, ArchiveError, ReadOptions};

/// Reads every file under `root`, honouring `.gitignore`, `.ignore` and
/// global git excludes. Vendored directories are pruned without being walked.
pub fn read_dir(root: &Path, options: &ReadOptions<'_>) -> Result<Archive, ArchiveError> {
    let io_err = |source| ArchiveError::Io { path: root.display().to_string(), source };
    if !root.is_dir() {
        return Err(io_err(std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a directory")));
    }
    let mut collector = Collector::new(options, None);
    let mut pruned = Vec::new();
    let mut beyond = 0usize;
    let walker = ignore::WalkBuilder::new(root)
        .hidden(false)
        .require_git(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(|entry| {
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            !(is_dir
                && entry.depth() > 0
                && vendored_component(&format!("{}/x", entry.file_name().to_string_lossy())).is_some())
        })
        .build();
    for (count, item) in walker.enumerate() {
        let entry = match item {
            Ok(entry) => entry,
            Err(err) => {
                collector.skip(err.to_string(), crate::SkipReason::Unreadable, err.to_string());
                continue;
            }
        };
        let relative = relative(root, entry.path());
        let Some(file_type) = entry.file_type() else { continue };
        if file_type.is_dir() {
            // Children of pruned directories never show up; note which ones were pruned.
            pruned.extend(list_pruned_children(entry.path(), &relative));
            continue;
        }
        if file_type.is_symlink() {
            collector.skip_entry(&relative, crate::SkipReason::Unsupported, "a symbolic link; links are not followed");
            continue;
        }
        if !file_type.is_file() {
            collector.skip_entry(
                &relative,
                crate::SkipReason::Unsupported,
                "not a regular file (a device, pipe or socket)",
            );
            continue;
        }
        if count >= options.limits.max_entries {
            beyond += 1;
            continue;
        }
        let declared_size = entry.metadata().map(|m| m.len()).unwrap_or(0);
        let path = entry.path().to_owned();
        collector.offer(Entry { raw_path: &relative, declared_size, encrypted: false }, |cap| {
            let mut buf = Vec::new();
            std::fs::File::open(&path)?.take(cap + 1).read_to_end(&mut buf)?;
            Ok(buf)
        });
    }
    if beyond > 0 {
        let limit = options.limits.max_entries;
        let detail = format!("only the first {limit} entries were looked at");
        collector.skip(format!("{beyond} more files"), crate::SkipReason::Limit, detail);
    }
    for dir in pruned {
        collector.skip_vendored_dir(&dir);
    }
    Ok(collector.finish())
}

fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// The vendored subdirectories of `dir` (which the walker will not enter).
fn list_pruned_children(dir: &Path, relative_dir: &str) -> Vec<String> {
    let Ok(read) = std::fs::read_dir(dir) else { return Vec::new() };
    read.filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            vendored_component(&format!("{name}/x"))
                .is_some()
                .then(|| if relative_dir.is_empty() { name } else { format!("{relative_dir}/{name}") })
        })
        .collect()
}
