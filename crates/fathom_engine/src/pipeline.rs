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
use fathom_parse::Parsers;
use fathom_resolve::{ProjectConfig, SourceFile as ResolveInput, is_config_file};
use fathom_search::lexical::{LineTerms, Splitter};
use fathom_search::retrieval::Retrieval;
use serde::{Deserialize, Serialize};

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
    /// SCIP indexes to read into the graph after resolution.
    scip: Vec<fathom_scip::ScipIndex>,
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
/// scripts and case files that staging keeps beside the source, text.
fn staged_language(path: &str) -> Language {
    Language::from_path(path).unwrap_or(Language::Text)
}

/// Parses one share of a repository's files, in order. A file the parser
/// gives up on still gets its module, with no definitions, and an error.
pub fn parse_share(files: &[SourceFile]) -> Vec<Parsed> {
    files.iter().map(parse_one).collect()
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

fn parse_one(file: &SourceFile) -> Parsed {
    PARSERS.with_borrow_mut(|parsers| SPLITTER.with_borrow_mut(|splitter| parse_with(parsers, splitter, file)))
}

/// A file's parse, then its lines' and its definitions' names' terms.
fn parse_with(parsers: &mut Parsers, splitter: &mut Splitter, file: &SourceFile) -> Parsed {
    let language = staged_language(&file.path);
    let mut errors = Vec::new();
    if file.lossy {
        errors.push(FileError::new(&file.path, "not valid UTF-8; invalid bytes were replaced".into(), None));
    }
    if let Some(warning) = bidi_warning(&file.text) {
        errors.push(FileError::new(&file.path, warning, None));
    }
    let facts = match parsers.parse(language, &file.path, &file.text) {
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
    Parsed { language, facts, terms, errors }
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

/// The files at `positions`, encoded for a parse worker.
fn encode_share(files: &[SourceFile], positions: &[u32]) -> Result<Vec<u8>, String> {
    let files: Vec<&SourceFile> = positions
        .iter()
        .map(|&i| files.get(i as usize).ok_or_else(|| format!("no file at position {i}")))
        .collect::<Result<_, _>>()?;
    postcard::to_allocvec(&files).map_err(|e| e.to_string())
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
            if staged_language(&file.path) != parse.language {
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
}

/// Reads about `bytes_wanted` of an archive's first source files, under the
/// same rules as [`stage_zip`], without inflating the rest.
pub fn sample_zip(bytes: &[u8], options: &Options, bytes_wanted: u64) -> Sample {
    let read_options = read_options(options);
    let archive = fathom_archive::sample_archive(bytes, &read_options, bytes_wanted);
    let files = archive.files.into_iter().filter(|f| Language::from_path(&f.path).is_some()).collect();
    Sample { root: archive.root, files }
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
        encode_share(&self.files, positions)
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

/// The heap's peak after parsing (building, resolving and indexing the
/// graph) is at most about this many times what parsing left live: 1.45 on
/// Django 5.0.6, 1.7 on files of one-line functions (`bench/PERFORMANCE.md`,
/// "Memory"). Parsing stops admitting files once the heap holds the budget
/// over this.
const PEAK_OVER_PARSED: u64 = 2;

/// What parsing a byte of source adds to the heap at most, as measured:
/// 16 bytes on files of one-line functions, the densest content measured;
/// about 5 on Django. Batches are sized so that one cannot overshoot the
/// room left.
const PARSED_PER_SOURCE_BYTE: u64 = 20;

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
        let name = name.to_owned();
        Staged { name, options: options.clone(), start, timings, root, files, configs, skipped, parsed, scip }
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
        let unparsed = (0..self.files.len() as u32).filter(|&i| self.parsed[i as usize].is_none());
        balance(&self.files, unparsed, n)
    }

    /// The files at `positions`, encoded for a parse worker's
    /// [`parse_share_bytes`].
    pub fn share(&self, positions: &[u32]) -> Result<Vec<u8>, String> {
        encode_share(&self.files, positions)
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
            if let Some(&here) = by_path.get(file.path.as_str())
                && self.files[here].text == file.text
            {
                taken.push((here, parse));
            }
        }
        let count = taken.len();
        for (here, parse) in taken {
            self.parsed[here] = Some(parse);
        }
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
    /// Past the measured ceiling ([`Staged::parse_missing`]) an answer is
    /// dropped: its files stay unparsed and are left out when the index is
    /// built, as those parsed here would be.
    pub fn accept(&mut self, positions: &[u32], parsed: Vec<Parsed>) -> Result<(), String> {
        answered(&self.files, positions, &parsed)?;
        if self.past_heap_ceiling() {
            return Ok(());
        }
        for (&at, parse) in positions.iter().zip(parsed) {
            self.parsed[at as usize] = Some(parse);
        }
        Ok(())
    }

    /// Parses, here, every file that has no parse yet: all of them when
    /// nothing was handed out, a failed worker's share otherwise. Natively
    /// this runs on every core.
    ///
    /// Where the heap is counted and the budget names its size
    /// ([`fathom_archive::Budget::heap`]), files are parsed smallest first,
    /// and once the heap holds the budget over [`PEAK_OVER_PARSED`] the rest
    /// are left out, listed as skipped (limit): whatever a file's content
    /// costs (one definition per line costs several times what ordinary
    /// code does), the stages after parsing stay within the budget, and an
    /// ordinary file beside large ones is among those kept.
    fn parse_missing(&mut self, observer: &mut dyn Observer) {
        let mut missing: Vec<usize> = (0..self.files.len()).filter(|&i| self.parsed[i].is_none()).collect();
        let total = self.files.len();
        let mut done = total - missing.len();
        let ceiling = self.heap_ceiling();
        if ceiling.is_some() {
            missing.sort_by_key(|&i| (self.files[i].text.len(), i));
        }
        let most = PARSE_BATCH * fathom_search::parallel::threads();
        let mut next = 0;
        while next < missing.len() {
            let size = match ceiling {
                None => most,
                Some(ceiling) => {
                    if self.past_heap_ceiling() {
                        break;
                    }
                    // As many files as fit in the room left, parsed at
                    // the densest rate measured; at least one.
                    let live = crate::heap::live().unwrap_or(0);
                    let mut room = ceiling.saturating_sub(live) / PARSED_PER_SOURCE_BYTE;
                    let fit = missing[next..]
                        .iter()
                        .take(most)
                        .take_while(|&&i| {
                            let bytes = self.files[i].text.len() as u64;
                            let fits = bytes <= room;
                            room = room.saturating_sub(bytes);
                            fits
                        })
                        .count();
                    fit.max(1)
                }
            };
            let batch = &missing[next..(next + size).min(missing.len())];
            observer.progress(Stage::Parse, done, total);
            let files = &self.files;
            for (at, parse) in batch.iter().zip(fathom_search::parallel::map(batch, |&i| parse_one(&files[i]))) {
                self.parsed[*at] = Some(parse);
            }
            done += batch.len();
            next += batch.len();
        }
        if next < missing.len()
            && let Some(ceiling) = ceiling
        {
            self.leave_out_unparsed(ceiling);
        }
        observer.progress(Stage::Parse, self.files.len(), self.files.len());
    }

    /// What the heap may hold once parsed: the budget's heap over
    /// [`PEAK_OVER_PARSED`], where the budget names one and the allocator is
    /// counted.
    fn heap_ceiling(&self) -> Option<u64> {
        let heap = self.options.limits.budget.as_ref().map_or(0, |b| b.heap);
        (heap > 0 && crate::heap::live().is_some()).then_some(heap / PEAK_OVER_PARSED)
    }

    /// Whether the heap holds its ceiling already, with some file parsed
    /// (the first is always admitted): parsing here stops, and workers'
    /// answers are dropped.
    fn past_heap_ceiling(&self) -> bool {
        self.heap_ceiling().zip(crate::heap::live()).is_some_and(|(ceiling, live)| live >= ceiling)
            && self.parsed.iter().any(Option::is_some)
    }

    /// Leaves out the files parsing did not reach, measured over the budget.
    fn leave_out_unparsed(&mut self, ceiling: u64) {
        let why = self.options.limits.budget.as_ref().map_or("", |b| b.why.as_str());
        let detail = format!(
            "{}: {why}; the heap held {} of the {} that parsing may take (what indexing needs after parsing comes to \
             about twice that), so the largest files, parsed last, were left out",
            fathom_archive::OVER_BUDGET,
            fathom_archive::human_bytes(crate::heap::live().unwrap_or(0)),
            fathom_archive::human_bytes(ceiling),
        );
        let parsed = std::mem::take(&mut self.parsed);
        let files = std::mem::take(&mut self.files);
        for (file, parse) in files.into_iter().zip(parsed) {
            if parse.is_some() {
                self.files.push(file);
                self.parsed.push(parse);
            } else {
                self.skipped.push(fathom_archive::Skipped {
                    path: file.path,
                    reason: fathom_archive::SkipReason::Limit,
                    detail: detail.clone(),
                });
            }
        }
    }

    /// Builds the index: parses what has no parse yet, then builds the
    /// graph, resolves it, links tests and builds the lexical index. Parse
    /// time is the time since reading ended.
    pub fn index(mut self, observer: &mut dyn Observer) -> Index {
        self.parse_missing(observer);
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
    let files: Vec<SourceFile> =
        postcard::from_bytes(share).map_err(|e| format!("a parse share is undecodable: {e}"))?;
    postcard::to_allocvec(&parse_share(&files)).map_err(|e| e.to_string())
}

/// The parses a parse worker sent back.
pub fn decode_parsed(bytes: &[u8]) -> Result<Vec<Parsed>, String> {
    postcard::from_bytes(bytes).map_err(|e| format!("a parse worker's answer is undecodable: {e}"))
}
