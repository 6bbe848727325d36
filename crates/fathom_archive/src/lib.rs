//! Turns a repository archive (or, with the `fs` feature, a directory) into
//! the list of source files worth analysing, and says why everything else
//! was left out.
//!
//! This crate knows nothing of languages or parsing: the caller decides which
//! paths it can analyse through [`ReadOptions::accept`], so files nobody will
//! parse are never decompressed.

mod collect;
#[cfg(feature = "fs")]
mod dir;
mod exclude;
mod rules;
mod tar_reader;
mod zip_reader;

pub use collect::{OVER_BUDGET, common_root, human_bytes, is_bidi_control, unsafe_in_name};
#[cfg(feature = "fs")]
pub use dir::read_dir;
pub use exclude::{Exclude, ExcludeError};
pub use rules::{bundle_marker, vendored_component};
pub use tar_reader::{Format, read_archive, read_files, read_tar, sample_archive, survey_archive};
pub use zip_reader::read_zip;

use serde::{Deserialize, Serialize};

/// Bounds that keep a hostile or accidental input from exhausting memory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Files larger than this are skipped as `too_large`.
    pub max_file_bytes: u64,
    /// Once this many bytes have been kept, the rest of the input is skipped.
    pub max_total_bytes: u64,
    /// Entries beyond this count are not looked at.
    pub max_entries: usize,
    /// What the memory that indexing will take allows to be kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<Budget>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_file_bytes: 1 << 20, max_total_bytes: 1 << 30, max_entries: 1_000_000, budget: None }
    }
}

/// A memory budget, as what reading may keep: each kept file weighs its
/// bytes plus `per_file`. A file that would take the weight past `weight`
/// is skipped as [`SkipReason::Limit`], decided by the sizes the input
/// declares, before anything is read; a smaller one after it may still fit
/// (an ordinary module after many large ones is kept).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Budget {
    pub weight: u64,
    pub per_file: u64,
    /// Where the budget comes from, for the skipped files' detail.
    pub why: String,
    /// The heap indexing may take, in bytes, where the caller's allocator
    /// is counted (`fathom_engine::heap`): parsing then measures what it
    /// holds and stops admitting files near it, whatever the estimate
    /// behind `weight` said. Zero where nothing is measured.
    #[serde(default)]
    pub heap: u64,
}

/// How to read an input.
pub struct ReadOptions<'a> {
    pub limits: Limits,
    /// Whether the caller can analyse a file at this (root-relative) path.
    /// Files it refuses are reported as [`SkipReason::Unsupported`] unread.
    pub accept: &'a dyn Fn(&str) -> bool,
    /// A smaller cap on the size of some accepted paths: files read only to
    /// see whether they are wanted (a test folder's scripts). One larger is
    /// reported as [`SkipReason::Unsupported`] unread. [`no_cap`] for none.
    pub read_cap: &'a dyn Fn(&str) -> Option<u64>,
    /// Paths the user leaves out; they are reported as [`SkipReason::Excluded`].
    pub exclude: &'a Exclude,
}

/// No path has a cap of its own ([`ReadOptions::read_cap`]).
pub fn no_cap(_: &str) -> Option<u64> {
    None
}

/// One text file kept for analysis.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceFile {
    /// Slash-separated path, relative to the repository root.
    pub path: String,
    pub text: String,
    /// The bytes were not valid UTF-8 and were decoded lossily.
    pub lossy: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// Under a vendored, built or tool-cache directory such as `node_modules`,
    /// or a library's release copied in (`static/jquery-3.5.1.js`).
    Vendored,
    /// A minified bundle or script, or a source map: generated, and too dense
    /// to afford. Other generated code is indexed, and its role says so.
    Generated,
    Binary,
    TooLarge,
    /// No supported language.
    Unsupported,
    Encrypted,
    /// The entry could not be read: a damaged entry or an unsafe path.
    Unreadable,
    /// A limit on the whole input was reached.
    Limit,
    /// Left out by the user (`--exclude`). Appended last: older bundles,
    /// which never hold it, still decode.
    Excluded,
}

/// A path left out of the analysis, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    pub path: String,
    pub reason: SkipReason,
    pub detail: String,
}

/// What reading an input produced.
#[derive(Debug, Default)]
pub struct Archive {
    /// The single top-level folder every path shared, stripped from all paths
    /// (GitHub archives wrap everything in `repo-main/`).
    pub root: Option<String>,
    pub files: Vec<SourceFile>,
    pub skipped: Vec<Skipped>,
    /// In a survey ([`survey_archive`]), the files that would be kept,
    /// unread; empty otherwise.
    pub listed: Vec<Listed>,
    /// Files left out by the memory budget, and their declared bytes.
    pub over_budget: (usize, u64),
    /// SCIP indexes found among the files (`index.scip`, `*.scip`), kept
    /// aside as they are: not source, but what the engine reads beside it.
    pub scip: Vec<Attached>,
}

/// A file kept aside, unread as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attached {
    pub path: String,
    pub bytes: Vec<u8>,
}

/// The largest SCIP index kept from an archive (the engine's own limit on
/// reading one, `fathom_scip::MAX_SCIP_BYTES`, is the same).
pub const MAX_SCIP_BYTES: u64 = 512 << 20;

/// Whether a path names a SCIP index.
pub fn is_scip_index(path: &str) -> bool {
    path.rsplit('/').next().is_some_and(|name| name.ends_with(".scip") && name.len() > ".scip".len())
}

/// A file a survey found, by the size its archive declares.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Listed {
    pub path: String,
    pub bytes: u64,
}

/// What an archive holds for analysis before any of it is read: the files
/// that would be kept, their bytes, and both by top-level folder, so a user
/// can choose a subset that fits a memory budget.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Survey {
    pub files: usize,
    pub bytes: u64,
    /// Files left out by the memory budget ([`Limits::budget`]), and their
    /// declared bytes.
    #[serde(default)]
    pub over_budget: usize,
    #[serde(default)]
    pub over_budget_bytes: u64,
    /// Top-level folders, largest first; files at the top level are under
    /// the folder `""`.
    pub folders: Vec<FolderSize>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FolderSize {
    pub path: String,
    pub files: usize,
    pub bytes: u64,
}

impl Survey {
    pub fn new(listed: &[Listed]) -> Survey {
        let mut folders: std::collections::BTreeMap<&str, (usize, u64)> = std::collections::BTreeMap::new();
        for file in listed {
            let folder = file.path.split_once('/').map_or("", |(top, _)| top);
            let entry = folders.entry(folder).or_default();
            entry.0 += 1;
            entry.1 += file.bytes;
        }
        let mut folders: Vec<FolderSize> = folders
            .into_iter()
            .map(|(path, (files, bytes))| FolderSize { path: path.to_owned(), files, bytes })
            .collect();
        folders.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.path.cmp(&b.path)));
        Survey {
            files: listed.len(),
            bytes: listed.iter().map(|f| f.bytes).sum(),
            over_budget: 0,
            over_budget_bytes: 0,
            folders,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    #[error("archive `{name}` is not a readable zip: {detail}")]
    NotAZip { name: String, detail: String },
    /// Another kind of file, known by its first bytes: an image, a PDF, an
    /// archive format Fathom does not read.
    #[error("`{name}` is {kind}, not a zip, tar or tar.gz archive")]
    NotAnArchive { name: String, kind: &'static str },
    #[error("archive `{name}` holds nothing: {detail}")]
    Empty { name: String, detail: String },
    #[error("archive `{name}` is not a readable tar: {detail}")]
    NotATar { name: String, detail: String },
    #[error("cannot read `{path}`: {source}")]
    Io { path: String, source: std::io::Error },
}

/// Why `bytes` are not a zip: what they are instead, when their first bytes
/// say, or the zip reader's `detail`.
pub(crate) fn not_an_archive(name: &str, bytes: &[u8], detail: String) -> ArchiveError {
    const KINDS: &[(&[u8], &str)] = &[
        (b"\x89PNG\r\n\x1a\n", "a PNG image"),
        (b"\xff\xd8\xff", "a JPEG image"),
        (b"GIF8", "a GIF image"),
        (b"%PDF-", "a PDF document"),
        (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
        (b"Rar!\x1a\x07", "a RAR archive"),
        (b"BZh", "a bzip2 stream"),
        (b"\xfd7zXZ\x00", "an xz stream"),
        (b"\x28\xb5\x2f\xfd", "a Zstandard stream"),
        (b"\x7fELF", "an ELF executable"),
        (b"MZ", "a Windows executable"),
    ];
    if bytes.is_empty() {
        return ArchiveError::Empty { name: name.to_owned(), detail: "the file is empty (0 bytes)".into() };
    }
    match KINDS.iter().find(|(magic, _)| bytes.starts_with(magic)) {
        Some(&(_, kind)) => ArchiveError::NotAnArchive { name: name.to_owned(), kind },
        None => ArchiveError::NotAZip { name: name.to_owned(), detail },
    }
}
