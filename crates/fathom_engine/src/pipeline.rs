//! The stages from an archive to an [`Index`], in two halves that may run in
//! different places.
//!
//! [`stage_zip`] (or [`stage_files`], [`stage_dir`]) reads the archive into a
//! [`Staged`] repository. Its files are then parsed, each on its own, by
//! parse workers ([`Staged::share`] hands out shares of the files,
//! [`parse_share_bytes`] parses one into compact [`Parsed`] facts,
//! [`Staged::accept`] takes them back) or here, on every core natively.
//! [`Staged::index`] parses what is still unparsed, then builds the graph,
//! resolves it and indexes it. Either way the index is the same: parses are
//! merged in the files' order, not the order they arrive in.

use std::collections::HashMap;

use fathom_archive::{Archive, ReadOptions, SourceFile};
use fathom_graph::{CodeGraph, FileInput, FileNodes};
use fathom_model::{FileFacts, Language};
use fathom_parse::{Defines, Parsers};
use fathom_resolve::{ProjectConfig, SourceFile as ResolveInput, is_config_file};
use fathom_search::lexical::{LineTerms, Splitter};
use fathom_search::retrieval::Retrieval;
use serde::{Deserialize, Serialize};

use crate::cost::FileCost;
use crate::{EngineError, FileError, GraphTexts, Index, IndexSummary, Observer, Options, Stage, Timings};

/// One file's parse: what a parse worker sends back.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Parsed {
    pub language: Language,
    pub facts: FileFacts,
    /// The file's lines split into lexical terms: splitting here, on every
    /// core, spares the lexical index (one thread, after resolution) most of
    /// its work.
    pub terms: LineTerms,
    /// A lossy decoding, a syntax error or a parser that gave up.
    pub errors: Vec<FileError>,
    /// Heap bytes the parse retained where it ran ([`crate::heap::measure`];
    /// zero where the heap is not counted): at least what these facts hold
    /// once decoded elsewhere, as a decoded vector holds no spare room.
    #[serde(default)]
    pub heap: u64,
}

/// A repository read and waiting to be parsed.
pub struct Staged {
    name: String,
    options: Options,
    start: f64,
    timings: Timings,
    /// The folder stripped from every path.
    root: Option<String>,
    /// Sources in a supported language, in the archive's order.
    files: Vec<SourceFile>,
    /// The project files that tell how imports resolve.
    configs: Vec<SourceFile>,
    skipped: Vec<fathom_archive::Skipped>,
    /// File `i`'s parse, once it is in.
    parsed: Vec<Option<Parsed>>,
    /// What file `i`'s parse costs, now and in every later stage, beside it.
    costs: Vec<Option<FileCost>>,
    /// Why file `i` was left out once parsed, where it was too dense for
    /// the budget: it is not parsed again.
    refused: Vec<Option<String>>,
    /// What every stage after parsing adds for the files parsed, at most.
    after: u64,
    /// Folders where a file was left out as too dense, with why.
    dense_dirs: HashMap<String, String>,
    /// SCIP indexes to read into the graph after resolution.
    scip: Vec<fathom_scip::ScipIndex>,
    /// What the project's C and C++ files define, read before any is parsed.
    defines: Defines,
}

/// Reads an archive held in memory: a zip, a tar or a tar.gz, whichever its
/// first bytes say.
pub fn stage_zip(
    name: &str,
    bytes: &[u8],
    options: &Options,
    observer: &mut dyn Observer,
) -> Result<Staged, EngineError> {
    let start = observer.now_ms();
    let read_options = read_options(options);
    let archive = fathom_archive::read_archive(name, bytes, &read_options, &mut |done, total| {
        observer.progress(Stage::Read, done, total)
    })?;
    Ok(Staged::new(name, archive, options, start, observer))
}

/// Reads files handed over one by one, `(path, bytes)`: a folder dropped on
/// the page. The folder's own name, shared by every path, is stripped.
pub fn stage_files(
    name: &str,
    files: Vec<(String, Vec<u8>)>,
    options: &Options,
    observer: &mut dyn Observer,
) -> Staged {
    let start = observer.now_ms();
    let read_options = read_options(options);
    let archive = fathom_archive::read_files(files, &read_options, &mut |done, total| {
        observer.progress(Stage::Read, done, total)
    });
    Staged::new(name, archive, options, start, observer)
}

/// Reads a directory on disk, honouring `.gitignore`.
#[cfg(feature = "fs")]
pub fn stage_dir(
    path: &std::path::Path,
    options: &Options,
    observer: &mut dyn Observer,
) -> Result<Staged, fathom_archive::ArchiveError> {
    let start = observer.now_ms();
    let read_options = read_options(options);
    let archive = fathom_archive::read_dir(path, &read_options)?;
    let files = archive.files.len();
    observer.progress(Stage::Read, files, files);
    let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
    Ok(Staged::new(&name, archive, options, start, observer))
}

/// The memory the indexing worker needs, per MB of source and per thousand
/// files: fitted to `make bench`'s two runs in Chromium (Django 5.0.6, 16.4 MB
/// in 2,819 files: 162 MB; the synthetic 50,100 files, 45.4 MB: 698 MB), the
/// wasm heap after indexing without embeddings.
pub const HEAP_MB_PER_SOURCE_MB: f64 = 8.9;
pub const HEAP_MB_PER_THOUSAND_FILES: f64 = 5.9;

/// Natively, indexing takes about this many times the heap that
/// [`index_heap`] gives for wasm32 (64-bit pointers, and the threads' own
/// allocations): Django 5.0.6 peaks at 226 MB of resident memory natively,
/// where its wasm heap is 162 MB.
pub const NATIVE_HEAP_FACTOR: f64 = 1.4;
/// A native process's memory besides the index: code, stacks, allocator arenas.
pub const NATIVE_BASE_BYTES: u64 = 64 << 20;

/// The memory indexing `files` files of `source_bytes` natively takes, with
/// an archive of `archive_bytes` held while it is read.
pub fn native_heap(files: usize, source_bytes: u64, archive_bytes: u64) -> u64 {
    NATIVE_BASE_BYTES + 2 * archive_bytes + (NATIVE_HEAP_FACTOR * index_heap(files, source_bytes) as f64) as u64
}

/// What reading may keep so that indexing natively stays within
/// `heap_bytes` ([`native_heap`]); `why` says where that figure comes from.
pub fn native_budget(heap_bytes: u64, archive_bytes: u64, why: String) -> fathom_archive::Budget {
    const MB: f64 = (1 << 20) as f64;
    let free = heap_bytes.saturating_sub(NATIVE_BASE_BYTES + 2 * archive_bytes);
    let per_source_byte = HEAP_MB_PER_SOURCE_MB * NATIVE_HEAP_FACTOR;
    fathom_archive::Budget {
        weight: (free as f64 / per_source_byte) as u64,
        per_file: (HEAP_MB_PER_THOUSAND_FILES / HEAP_MB_PER_SOURCE_MB * MB / 1000.0) as u64,
        why,
        heap: heap_bytes.saturating_sub(NATIVE_BASE_BYTES),
    }
}

/// What indexing an archive would take, known before it is read.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Plan {
    pub survey: fathom_archive::Survey,
    /// The archive's own bytes, held while it is read.
    pub archive_bytes: u64,
    /// All of it indexed: `base_heap_bytes` plus every folder's.
    pub estimated_heap_bytes: u64,
    /// What any subset needs: the archive's bytes, counted twice (held, and
    /// as headroom for the entries inflated from it).
    pub base_heap_bytes: u64,
    /// What indexing each of `survey.folders` adds, in its order.
    pub folder_heap_bytes: Vec<u64>,
}

/// The heap that indexing `files` files of `source_bytes` needs.
pub fn index_heap(files: usize, source_bytes: u64) -> u64 {
    const MB: f64 = (1 << 20) as f64;
    (HEAP_MB_PER_SOURCE_MB * source_bytes as f64 + HEAP_MB_PER_THOUSAND_FILES * MB * files as f64 / 1000.0) as u64
}

/// Surveys an archive held in memory, reading no file: what it holds for
/// analysis, by top-level folder, and the heap indexing it would need. The
/// browser checks this against its memory budget before indexing.
pub fn plan_zip(name: &str, bytes: &[u8], options: &Options) -> Result<Plan, EngineError> {
    let read_options = read_options(options);
    let survey = fathom_archive::survey_archive(name, bytes, &read_options)?;
    let base_heap_bytes = 2 * bytes.len() as u64;
    let folder_heap_bytes: Vec<u64> = survey.folders.iter().map(|f| index_heap(f.files, f.bytes)).collect();
    let estimated_heap_bytes = base_heap_bytes + folder_heap_bytes.iter().sum::<u64>();
    Ok(Plan { survey, archive_bytes: bytes.len() as u64, estimated_heap_bytes, base_heap_bytes, folder_heap_bytes })
}

/// How every input is read: the caller's limits and exclusions, keeping
/// what [`accept`] takes.
fn read_options(options: &Options) -> ReadOptions<'_> {
    ReadOptions { limits: options.limits.clone(), accept: &accept, read_cap: &read_cap, exclude: &options.exclude }
}

/// Source files in a supported language, the project files that tell how
/// their imports resolve, and the files beside a test folder's scripts,
/// which may be tests ([`fathom_tests::scripts`]).
fn accept(path: &str) -> bool {
    Language::from_path(path).is_some() || is_config_file(path) || fathom_tests::scripts::may_be_text_test(path)
}

/// Files read only to see whether they are a test script or case file are
/// read only when they could be one ([`fathom_tests::scripts::MAX_TEXT_TEST_BYTES`]).
fn read_cap(path: &str) -> Option<u64> {
    (Language::from_path(path).is_none() && !is_config_file(path))
        .then_some(fathom_tests::scripts::MAX_TEXT_TEST_BYTES as u64)
}

/// The language a staged file is read as: its path's, or, for the test
/// scripts and case files that staging keeps beside the source, text; for
/// a `.h` file, what Linguist's heuristics read in its text
/// ([`fathom_search::heuristics`]).
fn staged_language(file: &SourceFile) -> Language {
    let language = Language::from_path(&file.path).unwrap_or(Language::Text);
    fathom_search::heuristics::disambiguate(&file.path, language, &file.text)
}

/// Parses one share of a repository's files, in order. A file the parser
/// gives up on still gets its module, with no definitions, and an error.
pub fn parse_share(files: &[SourceFile], defines: &Defines) -> Vec<Parsed> {
    files.iter().map(|file| parse_one(file, defines)).collect()
}

thread_local! {
    /// Each thread's parsers: compiling a language's queries costs more than
    /// parsing most files, so it happens once per thread, not once per file
    /// or per share.
    static PARSERS: std::cell::RefCell<Parsers> = std::cell::RefCell::new(Parsers::new());
    /// Each thread's splitter, whose cache of words and stems serves every
    /// file it splits.
    static SPLITTER: std::cell::RefCell<Splitter> = std::cell::RefCell::new(Splitter::default());
}

fn parse_one(file: &SourceFile, defines: &Defines) -> Parsed {
    let (mut parsed, measured) = crate::heap::measure(|| {
        PARSERS.with_borrow_mut(|parsers| {
            SPLITTER.with_borrow_mut(|splitter| parse_with(parsers, splitter, file, defines))
        })
    });
    parsed.heap = measured.retained;
    parsed
}

/// A file's parse, then its lines' and its definitions' names' terms.
fn parse_with(parsers: &mut Parsers, splitter: &mut Splitter, file: &SourceFile, defines: &Defines) -> Parsed {
    let language = staged_language(file);
    let mut errors = Vec::new();
    if file.lossy {
        errors.push(FileError::new(&file.path, "not valid UTF-8; invalid bytes were replaced".into(), None));
    }
    if let Some(warning) = bidi_warning(&file.text) {
        errors.push(FileError::new(&file.path, warning, None));
    }
    let facts = match parsers.parse_in(language, &file.path, &file.text, defines) {
        Ok(result) => {
            if let Some(first) = result.syntax_errors.first() {
                errors.push(FileError::syntax(&file.path, first, result.syntax_errors.len()));
            }
            result.facts
        }
        Err(err) => {
            errors.push(FileError::new(&file.path, err.to_string(), None));
            FileFacts::default()
        }
    };
    let terms = splitter.split(&file.text, facts.definitions.iter().map(|d| d.name.as_str()));
    Parsed { language, facts, terms, errors, heap: 0 }
}

/// Where a file holds a bidirectional control character, which can make
/// code display differently from how it runs (Trojan Source,
/// CVE-2021-42574). Reported, not refused: right-to-left text in a string
/// or comment legitimately needs some of them.
fn bidi_warning(text: &str) -> Option<String> {
    let at = text.find(fathom_archive::is_bidi_control)?;
    let c = text[at..].chars().next()?;
    let line = text[..at].matches('\n').count() + 1;
    let count = text.chars().filter(|&c| fathom_archive::is_bidi_control(c)).count();
    let which = match count {
        1 => format!("a bidirectional control character (U+{:04X}) on line {line}", c as u32),
        n => format!("{n} bidirectional control characters, the first (U+{:04X}) on line {line}", c as u32),
    };
    Some(format!("{which}: the code may display differently from how it runs (Trojan Source)"))
}

/// Splits `positions` of `files` into `n` shares of about equal size (by
/// bytes, the largest first, each to the lightest share), as lists of
/// positions in order. Empty shares are left out.
fn balance(files: &[SourceFile], positions: impl Iterator<Item = u32>, n: usize) -> Vec<Vec<u32>> {
    let n = n.max(1);
    let mut order: Vec<u32> = positions.collect();
    order.sort_by_key(|&i| std::cmp::Reverse(files[i as usize].text.len()));
    let mut shares = vec![(0usize, Vec::new()); n];
    for i in order {
        let lightest = shares.iter_mut().min_by_key(|(bytes, _)| *bytes).expect("n >= 1");
        lightest.0 += files[i as usize].text.len() + 1;
        lightest.1.push(i);
    }
    shares
        .into_iter()
        .filter(|(_, share)| !share.is_empty())
        .map(|(_, mut share)| {
            share.sort_unstable();
            share
        })
        .collect()
}

/// What the C and C++ files among `files` define ([`Defines::read`]): every
/// share carries it, so that each file is read with its project's macros.
fn defines_of(files: &[SourceFile]) -> Defines {
    let read = files.iter().filter(|f| fathom_parse::reads_defines(staged_language(f)));
    Defines::read(read.map(|f| f.text.as_str()))
}

/// The files at `positions`, encoded for a parse worker with the project's
/// `defines`.
fn encode_share(files: &[SourceFile], positions: &[u32], defines: &Defines) -> Result<Vec<u8>, String> {
    let files: Vec<&SourceFile> = positions
        .iter()
        .map(|&i| files.get(i as usize).ok_or_else(|| format!("no file at position {i}")))
        .collect::<Result<_, _>>()?;
    postcard::to_allocvec(&(defines, files)).map_err(|e| e.to_string())
}

/// The files at `positions` that a parse worker's answer `parsed` is for,
/// once it is checked: one parse per file, each of its file's language.
fn answered<'f>(files: &'f [SourceFile], positions: &[u32], parsed: &[Parsed]) -> Result<Vec<&'f SourceFile>, String> {
    if positions.len() != parsed.len() {
        return Err(format!("{} parses for {} files", parsed.len(), positions.len()));
    }
    positions
        .iter()
        .zip(parsed)
        .map(|(&at, parse)| {
            let file = files.get(at as usize).ok_or_else(|| format!("no file at position {at}"))?;
            if staged_language(file) != parse.language {
                return Err(format!("the parse given for {} is of {}", file.path, parse.language.name()));
            }
            if !parse.terms.fits(&file.text, parse.facts.definitions.len()) {
                return Err(format!("the terms given for {} do not split its lines and names", file.path));
            }
            Ok(file)
        })
        .collect()
}

/// An archive's first source files, read ahead of the rest ([`sample_zip`]),
/// so that parse workers start on them, compiling their queries and warming
/// up, while the whole archive is read. [`Staged::accept_sample`] keeps
/// their parses.
pub struct Sample {
    root: Option<String>,
    files: Vec<SourceFile>,
    /// What the sampled files define: where the whole archive defines more,
    /// their C and C++ parses are not kept.
    defines: Defines,
}

/// Reads about `bytes_wanted` of an archive's first source files, under the
/// same rules as [`stage_zip`], without inflating the rest.
pub fn sample_zip(bytes: &[u8], options: &Options, bytes_wanted: u64) -> Sample {
    let read_options = read_options(options);
    let archive = fathom_archive::sample_archive(bytes, &read_options, bytes_wanted);
    let files: Vec<SourceFile> = archive.files.into_iter().filter(|f| Language::from_path(&f.path).is_some()).collect();
    let defines = defines_of(&files);
    Sample { root: archive.root, files, defines }
}

impl Sample {
    pub fn files(&self) -> &[SourceFile] {
        &self.files
    }

    /// The sampled files in `n` shares (see [`balance`]).
    pub fn shares(&self, n: usize) -> Vec<Vec<u32>> {
        balance(&self.files, 0..self.files.len() as u32, n)
    }

    /// The sampled files at `positions`, encoded for a parse worker.
    pub fn share(&self, positions: &[u32]) -> Result<Vec<u8>, String> {
        encode_share(&self.files, positions, &self.defines)
    }
}

/// A SCIP index read from its bytes; one that cannot be read is named among
/// the files left out, with its cause.
fn read_scip_or_skip(
    path: &str,
    bytes: &[u8],
    skipped: &mut Vec<fathom_archive::Skipped>,
) -> Option<fathom_scip::ScipIndex> {
    fathom_scip::read(path, bytes)
        .map_err(|why| {
            skipped.push(fathom_archive::Skipped {
                path: path.to_owned(),
                reason: fathom_archive::SkipReason::Unreadable,
                detail: why.to_string(),
            })
        })
        .ok()
}

/// Splits files without a language into the test scripts and case files
/// among them ([`fathom_tests::scripts`]) and the rest.
fn text_tests(files: Vec<SourceFile>) -> (Vec<SourceFile>, Vec<SourceFile>) {
    let candidate = |f: &SourceFile| !f.lossy && fathom_tests::scripts::may_be_text_test(&f.path);
    let candidates: Vec<(&str, &str)> =
        files.iter().filter(|f| candidate(f)).map(|f| (f.path.as_str(), f.text.as_str())).collect();
    let mut verdicts = fathom_tests::scripts::text_tests(&candidates).into_iter();
    drop(candidates);
    files.into_iter().partition(|f| candidate(f) && verdicts.next().unwrap_or(false))
}

/// Files parsed (per thread) between two progress reports when parsing here.
const PARSE_BATCH: usize = 256;

/// A file is denser than ordinary code, and left out first when the budget
/// runs short, where its cost per byte of source is over this many times
/// what the plan takes for ordinary code ([`ordinary_per_source_byte`]).
const DENSE_OVER_ORDINARY: f64 = 3.0;

/// Files smaller than this are never left out as dense: what a small file
/// holds beside its text (its module, its path) would make any of them look
/// dense, and leaving one out makes little room.
const DENSE_MIN_BYTES: u64 = 16 << 10;

/// The folder of a path: all before its last `/`.
fn folder(path: &str) -> &str {
    path.rfind('/').map_or("", |at| &path[..at])
}

/// Heap bytes per byte of source that the plan takes for ordinary code
/// (what Django's index takes), natively or in wasm32.
pub fn ordinary_per_source_byte() -> f64 {
    let native = cfg!(target_pointer_width = "64");
    HEAP_MB_PER_SOURCE_MB * if native { NATIVE_HEAP_FACTOR } else { 1.0 }
}

impl Staged {
    /// Reads these SCIP indexes into the graph once it is resolved
    /// (`fathom_scip`), before any the archive held (the first index that
    /// covers a file is the one used for it); what they added is in the
    /// summary's `scip`.
    pub fn with_scip(mut self, mut indexes: Vec<fathom_scip::ScipIndex>) -> Staged {
        for index in self.scip.drain(..) {
            if !indexes.iter().any(|given| given.same_as(&index)) {
                indexes.push(index);
            }
        }
        self.scip = indexes;
        self
    }

    /// Reads a SCIP index given beside the archive (`name`, its bytes) to
    /// use as [`Staged::with_scip`] does; one that cannot be read is named
    /// with the files left out, with its cause, and the graph stays
    /// Fathom's own.
    pub fn attach_scip(&mut self, name: &str, bytes: &[u8]) {
        if let Some(index) = read_scip_or_skip(name, bytes, &mut self.skipped) {
            self.scip.retain(|held| !held.same_as(&index));
            self.scip.insert(0, index);
        }
    }

    fn new(name: &str, archive: Archive, options: &Options, start: f64, observer: &mut dyn Observer) -> Staged {
        let Archive { files, mut skipped, root, scip: attached, .. } = archive;
        // SCIP indexes found in the archive: read now, so a damaged one is
        // named with the files left out and the graph stays Fathom's own.
        let scip = attached.iter().filter_map(|a| read_scip_or_skip(&a.path, &a.bytes, &mut skipped)).collect();
        let (others, mut files): (Vec<SourceFile>, Vec<SourceFile>) =
            files.into_iter().partition(|f| Language::from_path(&f.path).is_none());
        let (tests, others): (Vec<SourceFile>, Vec<SourceFile>) = text_tests(others);
        files.extend(tests);
        let (configs, others): (Vec<SourceFile>, Vec<SourceFile>) =
            others.into_iter().partition(|f| is_config_file(&f.path));
        skipped.extend(others.into_iter().map(|f| fathom_archive::Skipped {
            path: f.path,
            reason: fathom_archive::SkipReason::Unsupported,
            detail: "no supported language for this file, and no test script runs it".into(),
        }));
        let timings = Timings { read: observer.now_ms() - start, ..Timings::default() };
        let parsed = vec![None; files.len()];
        let (costs, refused) = (vec![None; files.len()], vec![None; files.len()]);
        let name = name.to_owned();
        let defines = defines_of(&files);
        Staged {
            name,
            options: options.clone(),
            start,
            timings,
            root,
            files,
            configs,
            skipped,
            parsed,
            costs,
            refused,
            after: 0,
            dense_dirs: HashMap::new(),
            scip,
            defines,
        }
    }

    /// The files to parse, in the order of their positions.
    pub fn files(&self) -> &[SourceFile] {
        &self.files
    }

    /// Bytes of source to parse.
    pub fn source_bytes(&self) -> usize {
        self.files.iter().map(|f| f.text.len()).sum()
    }

    /// Splits the files with no parse yet into `n` shares of about equal
    /// size, as lists of file positions in order (see [`balance`]).
    pub fn shares(&self, n: usize) -> Vec<Vec<u32>> {
        let unparsed = (0..self.files.len() as u32).filter(|&i| self.waiting(i as usize));
        balance(&self.files, unparsed, n)
    }

    /// The files at `positions`, encoded for a parse worker's
    /// [`parse_share_bytes`].
    pub fn share(&self, positions: &[u32]) -> Result<Vec<u8>, String> {
        encode_share(&self.files, positions, &self.defines)
    }

    /// Takes the parses of the files at `positions` of `sample` (as
    /// [`Sample::share`] handed them out): each goes to the file read here
    /// with the same path and text, under the same root. The rest are
    /// dropped, as a sample's guessed root may prove wrong. Returns how many
    /// were taken.
    pub fn accept_sample(&mut self, sample: &Sample, positions: &[u32], parsed: Vec<Parsed>) -> Result<usize, String> {
        let files = answered(&sample.files, positions, &parsed)?;
        if sample.root != self.root {
            return Ok(0);
        }
        let by_path: HashMap<&str, usize> =
            self.files.iter().enumerate().map(|(at, f)| (f.path.as_str(), at)).collect();
        let mut taken = Vec::new();
        for (file, parse) in files.into_iter().zip(parsed) {
            // A C or C++ file read without macros the rest of the
            // archive defines is parsed again.
            let same_defines = sample.defines == self.defines || !fathom_parse::reads_defines(parse.language);
            if let Some(&here) = by_path.get(file.path.as_str())
                && self.files[here].text == file.text
                && same_defines
            {
                taken.push((here, parse));
            }
        }
        let count = taken.len();
        for (here, parse) in taken {
            self.keep(here, parse);
        }
        self.make_room(0);
        Ok(count)
    }

    /// How many files have their parse.
    pub fn parsed_count(&self) -> usize {
        self.parsed.iter().filter(|p| p.is_some()).count()
    }

    /// Takes the parses of the files at `positions` (as [`Staged::share`]
    /// handed them out), checking that each is of its file's language. An
    /// answer with any wrong parse is refused whole: nothing of it is kept.
    ///
    /// Where the budget names the heap, the parses are kept only while what
    /// the heap holds and what the later stages will add for every file
    /// parsed fit in it ([`Staged::make_room`]): the densest files are left
    /// out first, and where none is denser than ordinary code the answer's
    /// files stay unparsed, to be left out when the index is built unless
    /// room is found for them then.
    pub fn accept(&mut self, positions: &[u32], parsed: Vec<Parsed>) -> Result<(), String> {
        answered(&self.files, positions, &parsed)?;
        // `room` is unbounded without a budget.
        if self.room() < 0 && !self.parsed.iter().all(Option::is_none) {
            return Ok(());
        }
        for (&at, parse) in positions.iter().zip(parsed) {
            self.keep(at as usize, parse);
        }
        if !self.make_room(0) {
            for &at in positions {
                self.unkeep(at as usize);
            }
        }
        Ok(())
    }

    /// Whether file `at` still waits for its parse.
    fn waiting(&self, at: usize) -> bool {
        self.parsed[at].is_none() && self.refused[at].is_none()
    }

    /// Keeps file `at`'s parse, counting what it costs.
    fn keep(&mut self, at: usize, parse: Parsed) {
        let cost = FileCost::of(&parse, self.files[at].text.len());
        if let Some(old) = self.costs[at].replace(cost) {
            self.after -= old.after;
        }
        self.after += cost.after;
        self.parsed[at] = Some(parse);
    }

    /// Drops file `at`'s parse and its cost.
    fn unkeep(&mut self, at: usize) -> Option<FileCost> {
        self.parsed[at] = None;
        let cost = self.costs[at].take()?;
        self.after -= cost.after;
        Some(cost)
    }

    /// The heap indexing may take, where the budget names it and the heap
    /// is counted.
    fn heap_budget(&self) -> Option<u64> {
        let heap = self.options.limits.budget.as_ref().map_or(0, |b| b.heap);
        (heap > 0 && crate::heap::live().is_some()).then_some(heap)
    }

    /// What the budget leaves once the heap holds what it holds now and
    /// every later stage has added what it will for the files parsed;
    /// negative past it. Unbounded without a budget.
    fn room(&self) -> i64 {
        match (self.heap_budget(), crate::heap::live()) {
            (Some(budget), Some(live)) => budget as i64 - live as i64 - self.after as i64,
            _ => i64::MAX,
        }
    }

    /// Leaves out the densest files parsed, one by one, while the room left
    /// is under `wanted` bytes: only files denser than ordinary code
    /// ([`DENSE_OVER_ORDINARY`] times the plan's rate), so an ordinary file
    /// is never left out for another file's cost. Returns whether the room
    /// is there.
    fn make_room(&mut self, wanted: u64) -> bool {
        if self.heap_budget().is_none() {
            return true;
        }
        let ordinary = ordinary_per_source_byte();
        while self.room() < wanted as i64 {
            let densest = (0..self.files.len())
                .filter_map(|at| Some((at, self.costs[at]?)))
                .filter(|(_, cost)| {
                    cost.density() > DENSE_OVER_ORDINARY * ordinary && cost.counts.bytes >= DENSE_MIN_BYTES
                })
                .max_by(|(a, x), (b, y)| x.density().total_cmp(&y.density()).then(b.cmp(a)));
            let Some((at, _)) = densest else { return false };
            let cost = self.unkeep(at).expect("a file with a cost is kept");
            let why = self.too_dense(&cost);
            let dir = folder(&self.files[at].path).to_owned();
            self.dense_dirs.entry(dir).or_insert_with(|| format!("{} ({})", self.files[at].path, cost.describe()));
            self.refused[at] = Some(why);
        }
        true
    }

    /// Why a file too dense for the budget was left out, with its density.
    fn too_dense(&self, cost: &FileCost) -> String {
        let why = self.options.limits.budget.as_ref().map_or("", |b| b.why.as_str());
        format!(
            "{}: {why}; too dense to be worth its cost: {}, whose index would take about {} ({:.0} bytes per byte \
             of source, where ordinary code takes about {:.0}); the densest files are left out first",
            fathom_archive::OVER_BUDGET,
            cost.describe(),
            fathom_archive::human_bytes(cost.total()),
            cost.density(),
            ordinary_per_source_byte(),
        )
    }

    /// Parses, here, every file that has no parse yet: all of them when
    /// nothing was handed out, a failed worker's share otherwise. Natively
    /// this runs on every core.
    ///
    /// Where the budget names the heap and the heap is counted, files are
    /// parsed smallest first, in batches that fit the room left
    /// ([`Staged::room`]) even at the worst rate any content costs
    /// ([`crate::cost::WORST_PER_SOURCE_BYTE`]): no batch can overshoot.
    /// Where the next file does not fit, the densest files parsed are left
    /// out to make room ([`Staged::make_room`]), and the files beside them
    /// in their folder wait until every other file is parsed: they are then
    /// parsed only where they fit with nothing else left out, so content
    /// dense throughout a folder is parsed about once, not file after file.
    /// What is not parsed is left out, listed as skipped (limit). Whatever a
    /// file's content costs, then, every stage after parsing stays within
    /// the budget, and an ordinary file is not left out for another's cost.
    fn parse_missing(&mut self, observer: &mut dyn Observer) {
        let mut missing: Vec<usize> = (0..self.files.len()).filter(|&i| self.waiting(i)).collect();
        let total = self.files.len();
        let mut done = total - missing.len();
        let bounded = self.heap_budget().is_some();
        if bounded {
            missing.sort_by_key(|&i| (self.files[i].text.len(), i));
        }
        let most = PARSE_BATCH * fathom_search::parallel::threads();
        let mut queue: std::collections::VecDeque<usize> = missing.into();
        let mut deferred = Vec::new();
        let mut last_pass = false;
        loop {
            let batch = if bounded {
                self.next_batch(&mut queue, &mut deferred, last_pass, most)
            } else {
                queue.drain(..most.min(queue.len())).collect()
            };
            if batch.is_empty() {
                if last_pass || deferred.is_empty() {
                    break;
                }
                // The files beside dense ones, once every other file is in.
                last_pass = true;
                deferred.sort_by_key(|&i| (self.files[i].text.len(), i));
                queue = std::mem::take(&mut deferred).into();
                continue;
            }
            observer.progress(Stage::Parse, done, total);
            let files = &self.files;
            let defines = &self.defines;
            let parses = fathom_search::parallel::map(&batch, |&i| parse_one(&files[i], defines));
            for (&at, parse) in batch.iter().zip(parses) {
                self.keep(at, parse);
            }
            done += batch.len();
        }
        observer.progress(Stage::Parse, self.files.len(), self.files.len());
    }

    /// The next files to parse from `queue`, as many as fit the room left at
    /// the worst rate; the first one always, while nothing is parsed. Files
    /// in a folder where one was too dense are moved to `deferred`. In the
    /// last pass nothing is left out to make room; otherwise the densest
    /// files are. Empty where the next file finds no room.
    fn next_batch(
        &mut self,
        queue: &mut std::collections::VecDeque<usize>,
        deferred: &mut Vec<usize>,
        last_pass: bool,
        most: usize,
    ) -> Vec<usize> {
        let mut batch = Vec::new();
        let mut room = 0u64;
        while let Some(&at) = queue.front() {
            if !last_pass && self.dense_dirs.contains_key(folder(&self.files[at].path)) {
                deferred.push(at);
                queue.pop_front();
                continue;
            }
            let worst = crate::cost::worst(self.files[at].text.len());
            if batch.is_empty() {
                let nothing_yet = self.parsed.iter().all(Option::is_none);
                let fits = if last_pass { self.room() >= worst as i64 } else { self.make_room(worst) };
                if !fits && !nothing_yet {
                    break;
                }
                room = self.room().max(0) as u64;
            } else if worst > room || batch.len() >= most {
                break;
            }
            room = room.saturating_sub(worst);
            batch.push(at);
            queue.pop_front();
        }
        batch
    }

    /// Before the graph is built: what the heap holds and what every later
    /// stage will add must fit the budget. Where they do not (parses handed
    /// in by workers, measured only once taken), the densest files are left
    /// out, then the largest. Then leaves out, listed as skipped, every file
    /// with no parse.
    fn fit_and_leave_out(&mut self) {
        if !self.make_room(0) {
            let mut kept: Vec<usize> = (0..self.files.len()).filter(|&at| self.parsed[at].is_some()).collect();
            kept.sort_by_key(|&at| (self.files[at].text.len(), at));
            while self.room() < 0 && kept.len() > 1 {
                let at = kept.pop().expect("more than one");
                self.unkeep(at);
            }
        }
        if self.parsed.iter().any(Option::is_none) {
            self.leave_out_unparsed();
        }
    }

    /// What the heap holds once parsing ends and what the later stages will
    /// add, where the budget names the heap; the heap's second peak
    /// ([`crate::heap::mark`]) starts here, for the caller to read what they
    /// took.
    fn memory_report(&self) -> Option<crate::summary::MemoryReport> {
        let budget = self.heap_budget()?;
        let mut counts = crate::cost::Counts::default();
        for cost in self.costs.iter().flatten() {
            counts += cost.counts;
        }
        let (parsed, parse_peak) = crate::heap::counts()?;
        crate::heap::mark();
        Some(crate::summary::MemoryReport { budget, parse_peak, parsed, after: self.after, counts, peak: None })
    }

    /// Leaves out the files with no parse: too dense, or over the budget.
    fn leave_out_unparsed(&mut self) {
        let why = self.options.limits.budget.as_ref().map_or("", |b| b.why.as_str());
        let budget = self.heap_budget().unwrap_or(0);
        let over = format!(
            "{}: {why}; the heap held {} and the stages after parsing would add about {} for the files parsed, \
             of the {} that indexing may take, so the largest files, parsed last, were left out",
            fathom_archive::OVER_BUDGET,
            fathom_archive::human_bytes(crate::heap::live().unwrap_or(0)),
            fathom_archive::human_bytes(self.after),
            fathom_archive::human_bytes(budget),
        );
        let parsed = std::mem::take(&mut self.parsed);
        let costs = std::mem::take(&mut self.costs);
        let refused = std::mem::take(&mut self.refused);
        let files = std::mem::take(&mut self.files);
        for (((file, parse), cost), refused) in files.into_iter().zip(parsed).zip(costs).zip(refused) {
            if parse.is_some() {
                self.files.push(file);
                self.parsed.push(parse);
                self.costs.push(cost);
                self.refused.push(None);
            } else {
                let beside = || {
                    let dense = self.dense_dirs.get(folder(&file.path))?;
                    Some(format!(
                        "{}: {why}; not parsed, as a file beside it was too dense to keep, {dense}, and the files \
                         beside it came after every other file, with no room left",
                        fathom_archive::OVER_BUDGET
                    ))
                };
                let detail = refused.or_else(beside).unwrap_or_else(|| over.clone());
                self.skipped.push(fathom_archive::Skipped {
                    path: file.path,
                    reason: fathom_archive::SkipReason::Limit,
                    detail,
                });
            }
        }
    }

    /// Builds the index: parses what has no parse yet, then builds the
    /// graph, resolves it, links tests and builds the lexical index. Parse
    /// time is the time since reading ended.
    pub fn index(mut self, observer: &mut dyn Observer) -> Index {
        self.parse_missing(observer);
        self.fit_and_leave_out();
        let memory = self.memory_report();
        let Staged { name, options, start, mut timings, files, configs, skipped, parsed, scip, .. } = self;
        timings.parse = observer.now_ms() - start - timings.read;
        let mut errors: Vec<FileError> = Vec::new();
        let mut line_terms: Vec<LineTerms> = Vec::with_capacity(parsed.len());
        let parsed: Vec<(Language, FileFacts)> = parsed
            .into_iter()
            .map(|p| {
                let p = p.expect("every file is parsed");
                errors.extend(p.errors);
                line_terms.push(p.terms);
                (p.language, p.facts)
            })
            .collect();

        let mark = observer.now_ms();
        let inputs: Vec<FileInput<'_>> = files
            .iter()
            .zip(&parsed)
            .map(|(file, (language, facts))| FileInput {
                path: &file.path,
                language: *language,
                text: &file.text,
                facts,
            })
            .collect();
        let (mut graph, nodes) =
            CodeGraph::build(&inputs, &mut |done, total| observer.progress(Stage::Graph, done, total));
        drop(inputs);
        let name_terms = name_terms(&graph, &nodes, &parsed, &line_terms);
        timings.graph = observer.now_ms() - mark;

        let mark = observer.now_ms();
        observer.progress(Stage::Resolve, 0, 1);
        let config = ProjectConfig::read(configs.iter().map(|f| (f.path.as_str(), f.text.as_str())));
        errors.extend(
            config.problems.iter().map(|(path, why)| FileError::new(path, format!("not understood: {why}"), None)),
        );
        let sources: Vec<ResolveInput<'_>> = files
            .iter()
            .zip(&parsed)
            .zip(&nodes)
            .map(|((file, (language, facts)), nodes)| ResolveInput {
                path: &file.path,
                language: *language,
                facts,
                nodes,
            })
            .collect();
        let resolution = fathom_resolve::resolve(&mut graph, &sources, &config);
        let scip_report = (!scip.is_empty()).then(|| {
            let covered: Vec<fathom_scip::ScipFile<'_>> = sources
                .iter()
                .zip(&files)
                .map(|(source, file)| fathom_scip::ScipFile {
                    path: source.path,
                    language: source.language,
                    text: &file.text,
                    facts: source.facts,
                    nodes: source.nodes,
                })
                .collect();
            fathom_scip::apply(&mut graph, &covered, &scip)
        });
        drop(scip);
        drop(sources);
        drop(parsed);
        let texts: Vec<&str> = files.iter().map(|f| f.text.as_str()).collect();
        fathom_tests::link(&mut graph, &texts);
        drop(texts);
        graph.shrink_to_fit(); // no edge is added after this
        observer.progress(Stage::Resolve, 1, 1);
        timings.resolve = observer.now_ms() - mark;

        let mark = observer.now_ms();
        observer.progress(Stage::Index, 0, graph.node_count());
        // The texts move into the index: each file's contents are held once.
        let mut by_path = std::collections::HashMap::with_capacity(files.len());
        let texts: Vec<String> = files
            .into_iter()
            .enumerate()
            .map(|(at, f)| {
                by_path.insert(f.path, at as u32);
                f.text
            })
            .collect();
        let sources =
            GraphTexts { graph: &graph, texts: &texts, line_terms: Some(&line_terms), name_terms: &name_terms };
        let retrieval = Retrieval::build(&sources);
        drop(name_terms);
        drop(line_terms);
        observer.progress(Stage::Index, graph.node_count(), graph.node_count());
        timings.index = observer.now_ms() - mark;
        timings.total = observer.now_ms() - start;

        let mut summary = IndexSummary::new(&name, &graph, skipped, errors, resolution, timings);
        summary.scip = scip_report;
        summary.memory = memory;
        Index { graph, retrieval, texts, by_path, summary, options, embedding_model: None }
    }
}

/// The terms parsing split of each node's name, by node: `None` for a node
/// that is no file's definition, or whose name is not the definition's.
fn name_terms<'t>(
    graph: &CodeGraph,
    nodes: &[FileNodes],
    parsed: &[(Language, FileFacts)],
    terms: &'t [LineTerms],
) -> Vec<Option<&'t [u32]>> {
    let mut by_node = vec![None; graph.node_count()];
    for ((file, (_, facts)), split) in nodes.iter().zip(parsed).zip(terms) {
        for (at, (&node, definition)) in file.definitions.iter().zip(&facts.definitions).enumerate() {
            if graph.node(node).name == definition.name {
                by_node[node.index()] = split.name(at);
            }
        }
    }
    by_node
}

/// A parse worker's half: the files [`Staged::share`] encoded, parsed and
/// encoded back for [`decode_parsed`] and [`Staged::accept`].
pub fn parse_share_bytes(share: &[u8]) -> Result<Vec<u8>, String> {
    let (defines, files): (Defines, Vec<SourceFile>) =
        postcard::from_bytes(share).map_err(|e| format!("a parse share is undecodable: {e}"))?;
    postcard::to_allocvec(&parse_share(&files, &defines)).map_err(|e| e.to_string())
}

/// The parses a parse worker sent back.
pub fn decode_parsed(bytes: &[u8]) -> Result<Vec<Parsed>, String> {
    postcard::from_bytes(bytes).map_err(|e| format!("a parse worker's answer is undecodable: {e}"))
}
