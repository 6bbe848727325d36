//! The decisions shared by every input kind: path safety, skip rules, limits.

use std::collections::{BTreeMap, HashSet};
use std::io;

use crate::rules::{bundle_marker, looks_binary, minified, vendored_component, vendored_release};
use crate::{Archive, ReadOptions, SkipReason, Skipped, SourceFile};

/// Feeds entries through the skip rules and gathers what is kept.
pub(crate) struct Collector<'a> {
    options: &'a ReadOptions<'a>,
    root: Option<String>,
    files: Vec<SourceFile>,
    skipped: Vec<Skipped>,
    /// Vendored directory prefix -> number of entries under it, reported once.
    vendored: BTreeMap<String, usize>,
    seen: HashSet<String>,
    kept_bytes: u64,
    /// Files left out by the memory budget, and their declared bytes.
    over_budget: (usize, u64),
    full: bool,
    /// Where the whole listing is known before reading (a zip's central
    /// directory): the largest size the memory budget admits when files are
    /// taken smallest first ([`Collector::admit_smallest_first`]). Larger
    /// files are left out wherever they stand, so that small files late in
    /// the archive are not left out for large ones before them. Beside it,
    /// what the smaller files not yet offered will weigh: a file of the
    /// cutoff's size is read only where they still fit after it.
    size_cutoff: Option<(u64, u64)>,
    /// A survey: files that would be kept are listed with their declared
    /// sizes, never read.
    list_only: bool,
    listed: Vec<crate::Listed>,
    /// A sample: reading stops once this many bytes are kept.
    sample: Option<u64>,
    scip: Vec<crate::Attached>,
}

/// What a walk over an archive does with the files it would keep.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Walk {
    Read,
    /// List them with their declared sizes (a survey).
    List,
    /// Read only the first ones, until about this many bytes (a sample).
    Sample(u64),
}

impl Walk {
    pub fn collector<'a>(self, options: &'a ReadOptions<'a>, root: Option<String>) -> Collector<'a> {
        let sample = match self {
            Walk::Sample(bytes) => Some(bytes),
            Walk::Read | Walk::List => None,
        };
        Collector::new(options, root).listing(self == Walk::List).sampling(sample)
    }
}

/// An entry as the input describes it, before anything is read.
pub(crate) struct Entry<'p> {
    pub raw_path: &'p str,
    pub declared_size: u64,
    pub encrypted: bool,
}

impl<'a> Collector<'a> {
    pub fn new(options: &'a ReadOptions<'a>, root: Option<String>) -> Self {
        Collector {
            options,
            root,
            files: Vec::new(),
            skipped: Vec::new(),
            vendored: BTreeMap::new(),
            seen: HashSet::new(),
            kept_bytes: 0,
            over_budget: (0, 0),
            full: false,
            size_cutoff: None,
            list_only: false,
            listed: Vec::new(),
            sample: None,
            scip: Vec::new(),
        }
    }

    /// Reads only the first files, until about `bytes` are kept (a
    /// sample): the walk asks [`Collector::done`] and stops.
    pub fn sampling(mut self, bytes: Option<u64>) -> Self {
        self.sample = bytes;
        self
    }

    /// The folder stripped from every path.
    pub fn root(&self) -> Option<&str> {
        self.root.as_deref()
    }

    /// Whether a sample holds all it wants.
    pub fn done(&self) -> bool {
        self.sample.is_some_and(|wanted| self.full || self.kept_bytes >= wanted)
    }

    /// Lists what would be kept instead of reading it.
    pub fn listing(mut self, list_only: bool) -> Self {
        self.list_only = list_only;
        self
    }

    /// Given every entry's path and declared size before any is offered,
    /// admits files to the memory budget smallest first: once the sizes of
    /// the files it would keep, smallest first, pass the budget's weight,
    /// no larger file is read.
    pub fn admit_smallest_first<'p>(&mut self, entries: impl Iterator<Item = (&'p str, u64)>) {
        let Some(budget) = &self.options.limits.budget else { return };
        let cap = self.options.limits.max_file_bytes;
        let mut sizes: Vec<u64> = entries
            .filter(|&(raw, size)| {
                size <= cap && self.relative_path(raw).is_ok_and(|path| (self.options.accept)(&path))
            })
            .map(|(_, size)| size)
            .collect();
        sizes.sort_unstable();
        let mut weight = 0u64;
        for &size in &sizes {
            if weight + size + budget.per_file > budget.weight {
                let smaller: u64 = sizes.iter().take_while(|&&s| s < size).map(|s| s + budget.per_file).sum();
                self.size_cutoff = Some((size, smaller));
                return;
            }
            weight += size + budget.per_file;
        }
    }

    /// Decides on one file entry. `read(cap)` returns at most `cap + 1` bytes, so
    /// an entry that lies about its size is still caught.
    pub fn offer(&mut self, entry: Entry<'_>, read: impl FnOnce(u64) -> io::Result<Vec<u8>>) {
        let path = match self.relative_path(entry.raw_path) {
            Ok(path) => path,
            Err(why) => return self.skip(entry.raw_path.to_owned(), SkipReason::Unreadable, why.to_owned()),
        };
        if let Some(dir) = vendored_component(&path) {
            let end = path.find(&format!("{dir}/")).map_or(path.len(), |at| at + dir.len() + 1);
            *self.vendored.entry(path[..end].to_owned()).or_default() += 1;
            return;
        }
        if let Some(pattern) = self.options.exclude.matches(&path) {
            let detail = format!("excluded by `{pattern}`");
            return self.skip(path, SkipReason::Excluded, detail);
        }
        if !self.seen.insert(path.clone()) {
            return self.skip(path, SkipReason::Unreadable, "duplicate entry; the first one was kept".into());
        }
        if crate::is_scip_index(&path) {
            return self.attach(path, &entry, read);
        }
        if !(self.options.accept)(&path) {
            return self.skip(path, SkipReason::Unsupported, "no supported language for this file".into());
        }
        if let Some(cap) = (self.options.read_cap)(&path).filter(|&cap| entry.declared_size > cap) {
            let detail = format!(
                "no supported language for this file, and larger ({}) than a test script ({})",
                human_bytes(entry.declared_size),
                human_bytes(cap)
            );
            return self.skip(path, SkipReason::Unsupported, detail);
        }
        if let Some(marker) = bundle_marker(&path) {
            return self.skip(path, SkipReason::Generated, marker);
        }
        if let Some(copy) = vendored_release(&path) {
            return self.skip(path, SkipReason::Vendored, copy);
        }
        if entry.encrypted {
            return self.skip(path, SkipReason::Encrypted, "entry is encrypted".into());
        }
        let cap = self.options.limits.max_file_bytes;
        if entry.declared_size > cap {
            return self.skip(path, SkipReason::TooLarge, too_large(entry.declared_size, cap));
        }
        let options = self.options;
        if let Some(budget) = &options.limits.budget {
            let kept = self.files.len() + self.listed.len();
            let weight = self.kept_bytes + entry.declared_size + budget.per_file * (kept as u64 + 1);
            let over = match &mut self.size_cutoff {
                None => weight > budget.weight,
                Some((cutoff, smaller)) if entry.declared_size < *cutoff => {
                    *smaller = smaller.saturating_sub(entry.declared_size + budget.per_file);
                    false
                }
                Some((cutoff, smaller)) => entry.declared_size > *cutoff || weight + *smaller > budget.weight,
            };
            if over {
                self.over_budget.0 += 1;
                self.over_budget.1 += entry.declared_size;
                return self.skip(path, SkipReason::Limit, format!("{OVER_BUDGET}: {}", budget.why));
            }
        }
        if self.full {
            return self.skip(path, SkipReason::Limit, self.total_limit_detail());
        }
        if self.list_only {
            self.kept_bytes += entry.declared_size;
            self.full = self.kept_bytes > self.options.limits.max_total_bytes;
            return self.listed.push(crate::Listed { path, bytes: entry.declared_size });
        }
        let Some((path, bytes)) = self.read_within(path, read, cap) else { return };
        let utf16 = utf16_with_bom(&bytes);
        if utf16.is_none() && looks_binary(&bytes) {
            return self.skip(path, SkipReason::Binary, "contains NUL bytes".into());
        }
        if self.kept_bytes + bytes.len() as u64 > self.options.limits.max_total_bytes {
            self.full = true;
            return self.skip(path, SkipReason::Limit, self.total_limit_detail());
        }
        let (text, lossy) = match utf16 {
            Some(decoded) => decoded,
            None => match String::from_utf8(bytes) {
                Ok(text) => (text, false),
                Err(err) => (String::from_utf8_lossy(err.as_bytes()).into_owned(), true),
            },
        };
        if let Some(marker) = minified(&path, &text) {
            return self.skip(path, SkipReason::Generated, marker);
        }
        self.kept_bytes += text.len() as u64;
        self.files.push(SourceFile { path, text, lossy });
    }

    /// Skips an entry by its name in the input, made relative and safe as a
    /// kept file's is (or as it is, when it cannot be).
    pub fn skip_entry(&mut self, raw_path: &str, reason: SkipReason, detail: &str) {
        let path = self.relative_path(raw_path).unwrap_or_else(|_| raw_path.to_owned());
        self.skip(path, reason, detail.to_owned());
    }

    pub fn skip(&mut self, path: String, reason: SkipReason, detail: String) {
        self.skipped.push(Skipped { path, reason, detail });
    }

    /// Records a whole directory left out without looking inside it.
    #[cfg(feature = "fs")]
    pub fn skip_vendored_dir(&mut self, raw_path: &str) {
        if let Ok(path) = self.relative_path(raw_path) {
            self.vendored.insert(format!("{path}/"), 0);
        }
    }

    /// Keeps a SCIP index aside, under its own cap; a survey or a sample
    /// leaves it unread.
    fn attach(&mut self, path: String, entry: &Entry<'_>, read: impl FnOnce(u64) -> io::Result<Vec<u8>>) {
        if self.list_only || self.sample.is_some() {
            return;
        }
        let cap = crate::MAX_SCIP_BYTES;
        if entry.encrypted {
            return self.skip(path, SkipReason::Encrypted, "entry is encrypted".into());
        }
        if entry.declared_size > cap {
            return self.skip(path, SkipReason::TooLarge, too_large(entry.declared_size, cap));
        }
        if let Some((path, bytes)) = self.read_within(path, read, cap) {
            self.scip.push(crate::Attached { path, bytes });
        }
    }

    /// Reads an entry, at most `cap` bytes of it: `None` where it cannot be
    /// read or holds more, skipped with that cause.
    fn read_within(
        &mut self,
        path: String,
        read: impl FnOnce(u64) -> io::Result<Vec<u8>>,
        cap: u64,
    ) -> Option<(String, Vec<u8>)> {
        match read(cap) {
            Ok(bytes) if bytes.len() as u64 > cap => {
                self.skip(path, SkipReason::TooLarge, format!("more than {} when decompressed", human_bytes(cap)));
                None
            }
            Ok(bytes) => Some((path, bytes)),
            Err(err) => {
                self.skip(path, SkipReason::Unreadable, err.to_string());
                None
            }
        }
    }

    pub fn finish(mut self) -> Archive {
        for (dir, count) in std::mem::take(&mut self.vendored) {
            let name = dir.trim_end_matches('/').rsplit('/').next().unwrap_or_default().to_owned();
            let detail = match count {
                0 => format!("vendored or generated directory `{name}`"),
                1 => format!("vendored or generated directory `{name}` (1 entry)"),
                n => format!("vendored or generated directory `{name}` ({n} entries)"),
            };
            self.skipped.push(Skipped { path: dir, reason: SkipReason::Vendored, detail });
        }
        self.files.sort_by(|a, b| a.path.cmp(&b.path));
        self.skipped.sort_by(|a, b| (a.reason, &a.path).cmp(&(b.reason, &b.path)));
        self.listed.sort_by(|a, b| a.path.cmp(&b.path));
        Archive {
            root: self.root,
            files: self.files,
            skipped: self.skipped,
            listed: self.listed,
            over_budget: self.over_budget,
            scip: self.scip,
        }
    }

    fn relative_path(&self, raw: &str) -> Result<String, &'static str> {
        let path = normalize(raw)?;
        Ok(match &self.root {
            Some(root) => {
                path.strip_prefix(root.as_str()).and_then(|p| p.strip_prefix('/')).unwrap_or(&path).to_owned()
            }
            None => path,
        })
    }

    fn total_limit_detail(&self) -> String {
        format!("the input holds more than {} of source", human_bytes(self.options.limits.max_total_bytes))
    }
}

/// How the detail of a file left out by the memory budget starts.
pub const OVER_BUDGET: &str = "over the memory budget";

/// A file that starts with a UTF-16 byte order mark (as Windows editors
/// save C# and PowerShell), decoded, and whether any of it was invalid.
fn utf16_with_bom(bytes: &[u8]) -> Option<(String, bool)> {
    let little = match bytes {
        [0xFF, 0xFE, ..] => true,
        [0xFE, 0xFF, ..] => false,
        _ => return None,
    };
    let units = bytes[2..].chunks(2).map(|pair| match (pair, little) {
        ([a, b], true) => u16::from_le_bytes([*a, *b]),
        ([a, b], false) => u16::from_be_bytes([*a, *b]),
        _ => 0xFFFD, // an odd byte at the end
    });
    let mut lossy = bytes.len() % 2 == 1;
    let text = char::decode_utf16(units)
        .map(|c| {
            c.unwrap_or_else(|_| {
                lossy = true;
                '\u{FFFD}'
            })
        })
        .collect();
    Some((text, lossy))
}

/// A safe, slash-separated relative path, or why there is none. A leading
/// slash or drive letter is dropped, as archivers do; a `..` is refused.
/// Control characters and the bidirectional overrides (which can make a
/// name read as something else, `gnp.js` as `sj.png`) become U+FFFD, so a
/// path printed to a terminal or a page shows what it is.
fn normalize(raw: &str) -> Result<String, &'static str> {
    let unified: String = raw
        .chars()
        .map(|c| {
            if c == '\\' {
                '/'
            } else if unsafe_in_name(c) {
                '\u{FFFD}'
            } else {
                c
            }
        })
        .collect();
    let mut parts = Vec::new();
    for (at, part) in unified.split('/').enumerate() {
        match part {
            "" | "." => {}
            ".." => return Err("path escapes the archive root"),
            drive if at == 0 && is_drive(drive) => {}
            _ => parts.push(part),
        }
    }
    if parts.is_empty() {
        return Err("empty path");
    }
    Ok(parts.join("/"))
}

/// `C:`, a Windows drive letter.
fn is_drive(part: &str) -> bool {
    matches!(part.as_bytes(), [letter, b':'] if letter.is_ascii_alphabetic())
}

/// Characters a file name never needs, that change how text around them
/// displays: controls (a newline, an escape sequence) and the bidirectional
/// embeddings, overrides and isolates.
pub fn unsafe_in_name(c: char) -> bool {
    c.is_control() || is_bidi_control(c)
}

/// The bidirectional controls that Trojan Source (CVE-2021-42574) uses.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// The one top-level folder that every path lies under, if there is one.
pub fn common_root<'p>(paths: impl IntoIterator<Item = &'p str>) -> Option<String> {
    let mut root = CommonRoot::default();
    for raw in paths {
        if !root.add(raw) {
            return None;
        }
    }
    root.root
}

/// [`common_root`], one path at a time.
#[derive(Default)]
pub struct CommonRoot {
    root: Option<String>,
}

impl CommonRoot {
    /// Whether the paths so far, with `raw`, can still share one folder.
    pub fn add(&mut self, raw: &str) -> bool {
        if raw.ends_with('/') {
            return true;
        }
        let Ok(path) = normalize(raw) else { return true };
        let Some((first, _)) = path.split_once('/') else { return false };
        match &self.root {
            None => self.root = Some(first.to_owned()),
            Some(r) if r == first => {}
            Some(_) => return false,
        }
        true
    }

    /// The shared folder, if the paths added have one.
    pub fn root(&self) -> Option<&str> {
        self.root.as_deref()
    }
}

fn too_large(size: u64, cap: u64) -> String {
    format!("{} is over the {} per-file cap", human_bytes(size), human_bytes(cap))
}

/// A size for people: `512 B`, `9.7 KiB`, `19.9 MiB`.
pub fn human_bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 30 => format!("{:.1} GiB", n as f64 / (1u64 << 30) as f64),
        n if n >= 1 << 20 => format!("{:.1} MiB", n as f64 / (1u64 << 20) as f64),
        n if n >= 1 << 10 => format!("{:.1} KiB", n as f64 / 1024.0),
        n => format!("{n} B"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_normalised_and_escapes_refused() {
        assert_eq!(normalize("./a\\b//c.py"), Ok("a/b/c.py".into()));
        assert_eq!(normalize("/abs/x.py"), Ok("abs/x.py".into()));
        assert!(normalize("a/../../etc/passwd").is_err());
    }

    #[test]
    fn a_shared_top_folder_is_the_root() {
        assert_eq!(common_root(["repo-main/", "repo-main/a.py", "repo-main/src/b.py"]), Some("repo-main".into()));
        assert_eq!(common_root(["a.py", "src/b.py"]), None);
        assert_eq!(common_root(["x/a.py", "y/b.py"]), None);
    }
}
