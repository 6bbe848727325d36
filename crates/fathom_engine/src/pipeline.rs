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
use fathom_graph::{CodeGraph, Edge, EdgeId, FileInput, FileNodes, NodeId};
use fathom_model::{FileFacts, Language, SymbolKind};
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
    ReadOptions { limits: options.limits.clone(), accept: &accept, exclude: &options.exclude }
}

/// Source files in a supported language, and the project files that tell
/// how their imports resolve.
fn accept(path: &str) -> bool {
    Language::from_path(path).is_some() || is_config_file(path)
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
    let terms = SPLITTER.with_borrow_mut(|splitter| splitter.line_terms(&file.text));
    PARSERS.with_borrow_mut(|parsers| parse_with(parsers, file, terms))
}

fn parse_with(parsers: &mut Parsers, file: &SourceFile, terms: LineTerms) -> Parsed {
    let language = Language::from_path(&file.path).expect("a staged repository keeps only files with a language");
    let mut errors = Vec::new();
    if file.lossy {
        errors.push(FileError::new(&file.path, "not valid UTF-8; invalid bytes were replaced".into(), None));
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
    Parsed { language, facts, terms, errors }
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
            if Language::from_path(&file.path) != Some(parse.language) {
                return Err(format!("the parse given for {} is of {}", file.path, parse.language.name()));
            }
            if !parse.terms.fits(&file.text) {
                return Err(format!("the terms given for {} do not split its lines", file.path));
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

/// Files parsed (per thread) between two progress reports when parsing here.
const PARSE_BATCH: usize = 256;

impl Staged {
    fn new(name: &str, archive: Archive, options: &Options, start: f64, observer: &mut dyn Observer) -> Staged {
        let Archive { files, skipped, root, .. } = archive;
        let (configs, files): (Vec<SourceFile>, Vec<SourceFile>) =
            files.into_iter().partition(|f| Language::from_path(&f.path).is_none());
        let timings = Timings { read: observer.now_ms() - start, ..Timings::default() };
        let parsed = vec![None; files.len()];
        let name = name.to_owned();
        Staged { name, options: options.clone(), start, timings, root, files, configs, skipped, parsed }
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
    pub fn accept(&mut self, positions: &[u32], parsed: Vec<Parsed>) -> Result<(), String> {
        answered(&self.files, positions, &parsed)?;
        for (&at, parse) in positions.iter().zip(parsed) {
            self.parsed[at as usize] = Some(parse);
        }
        Ok(())
    }

    /// Parses, here, every file that has no parse yet: all of them when
    /// nothing was handed out, a failed worker's share otherwise. Natively
    /// this runs on every core.
    fn parse_missing(&mut self, observer: &mut dyn Observer) {
        let missing: Vec<usize> = (0..self.files.len()).filter(|&i| self.parsed[i].is_none()).collect();
        let total = self.files.len();
        let mut done = total - missing.len();
        for batch in missing.chunks(PARSE_BATCH * fathom_search::parallel::threads()) {
            observer.progress(Stage::Parse, done, total);
            let files = &self.files;
            for (at, parse) in batch.iter().zip(fathom_search::parallel::map(batch, |&i| parse_one(&files[i]))) {
                self.parsed[*at] = Some(parse);
            }
            done += batch.len();
        }
        observer.progress(Stage::Parse, total, total);
    }

    /// Builds the index: parses what has no parse yet, then builds the
    /// graph, resolves it, links tests and builds the lexical index. Parse
    /// time is the time since reading ended.
    pub fn index(self, observer: &mut dyn Observer) -> Index {
        let mut graphed = self.graph(observer);
        graphed.resolve_here(observer);
        graphed.finish(observer)
    }

    /// The index's first half: parses what has no parse yet and builds the
    /// graph. [`Graphed`] resolves it and indexes it.
    pub fn graph(mut self, observer: &mut dyn Observer) -> Graphed {
        self.parse_missing(observer);
        let Staged { name, options, start, mut timings, files, configs, skipped, parsed, .. } = self;
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
        let (graph, nodes) = CodeGraph::build(&inputs, &mut |done, total| observer.progress(Stage::Graph, done, total));
        drop(inputs);
        timings.graph = observer.now_ms() - mark;
        let config = ProjectConfig::read(configs.iter().map(|f| (f.path.as_str(), f.text.as_str())));
        errors.extend(
            config.problems.iter().map(|(path, why)| FileError::new(path, format!("not understood: {why}"), None)),
        );
        let (paths, texts): (Vec<String>, Vec<String>) = files.into_iter().map(|f| (f.path, f.text)).unzip();
        Graphed {
            name,
            options,
            start,
            timings,
            paths,
            texts,
            configs,
            skipped,
            errors,
            parsed,
            nodes,
            line_terms,
            graph,
            config,
            resolution: None,
            retrieval: None,
        }
    }
}

/// A repository parsed and built into its graph: the index's second half.
/// Natively, and for a small repository in the browser, it resolves here
/// and then builds the lexical index ([`Staged::index`]). In the browser,
/// resolution (with test linking) may run in an idle parse worker instead,
/// on its own copy of the graph ([`Graphed::resolution_job`],
/// [`resolve_job_bytes`]), while the lexical index is built here; what it
/// added comes back in order and is added here in the same order
/// ([`Graphed::accept_resolution`]), so the graph is the one resolving here
/// makes.
pub struct Graphed {
    name: String,
    options: Options,
    start: f64,
    timings: Timings,
    /// File `i`'s path and text.
    paths: Vec<String>,
    texts: Vec<String>,
    configs: Vec<SourceFile>,
    skipped: Vec<fathom_archive::Skipped>,
    errors: Vec<FileError>,
    parsed: Vec<(Language, FileFacts)>,
    nodes: Vec<FileNodes>,
    /// Until the lexical index is built.
    line_terms: Vec<LineTerms>,
    graph: CodeGraph,
    config: ProjectConfig,
    /// Once resolution and test linking have run, here or elsewhere.
    resolution: Option<fathom_resolve::Stats>,
    retrieval: Option<Retrieval>,
}

/// What a worker needs to resolve a repository: its files and facts, in
/// order, and its project files. Written by [`Graphed::resolution_job`]
/// from borrowed parts, read by [`resolve_job_bytes`] into owned ones: the
/// two encode alike.
#[derive(Serialize)]
struct JobRef<'a> {
    files: Vec<JobFileRef<'a>>,
    configs: Vec<(&'a str, &'a str)>,
}

#[derive(Serialize)]
struct JobFileRef<'a> {
    path: &'a str,
    language: Language,
    text: &'a str,
    facts: &'a FileFacts,
}

#[derive(Deserialize)]
struct Job {
    files: Vec<JobFile>,
    configs: Vec<(String, String)>,
}

#[derive(Deserialize)]
struct JobFile {
    path: String,
    language: Language,
    text: String,
    facts: FileFacts,
}

/// What resolution and test linking added to a graph of `nodes` nodes and
/// `edges` edges: the external nodes, then the edges, each in the order it
/// was added.
#[derive(Serialize, Deserialize)]
struct Resolution {
    nodes: u32,
    edges: u32,
    externals: Vec<(SymbolKind, String, Language)>,
    added: Vec<(u32, u32, Edge)>,
    stats: fathom_resolve::Stats,
}

impl Graphed {
    /// Whether the lexical index may be built before resolution, and so
    /// beside it: resolution adds nodes and edges the lexical index never
    /// reads, except the methods Go and Rust declare outside their type
    /// (it attaches them, and a class's chunk lists its members).
    pub fn can_resolve_elsewhere(&self) -> bool {
        self.resolution.is_none()
            && self.retrieval.is_none()
            && self.parsed.iter().all(|(_, facts)| facts.definitions.iter().all(|d| d.owner.is_none()))
    }

    /// Bytes of the files' texts: what a worker resolving them holds twice.
    pub fn source_bytes(&self) -> usize {
        self.texts.iter().map(String::len).sum()
    }

    /// Resolution's inputs, encoded for [`resolve_job_bytes`].
    pub fn resolution_job(&self) -> Result<Vec<u8>, String> {
        let files = (self.paths.iter().zip(&self.texts).zip(&self.parsed))
            .map(|((path, text), (language, facts))| JobFileRef { path, language: *language, text, facts })
            .collect();
        let configs = self.configs.iter().map(|f| (f.path.as_str(), f.text.as_str())).collect();
        postcard::to_allocvec(&JobRef { files, configs }).map_err(|e| e.to_string())
    }

    /// Takes what [`resolve_job_bytes`] added to its copy of this graph,
    /// after checking that it fits this one: nothing is added otherwise.
    pub fn accept_resolution(&mut self, answer: &[u8]) -> Result<(), String> {
        let undecodable = |e: postcard::Error| format!("a resolution is undecodable: {e}");
        let resolution: Resolution = postcard::from_bytes(answer).map_err(undecodable)?;
        let nodes = self.graph.node_count();
        if self.resolution.is_some() || resolution.nodes as usize != nodes {
            return Err(format!("a resolution of a graph of {} nodes, for one of {nodes}", resolution.nodes));
        }
        if resolution.edges as usize != self.graph.edge_count() {
            return Err(format!(
                "a resolution of {} edges, for a graph of {}",
                resolution.edges,
                self.graph.edge_count()
            ));
        }
        let all = nodes + resolution.externals.len();
        let mut seen = std::collections::HashSet::new();
        if let Some((kind, name, _)) = resolution.externals.iter().find(|(kind, name, _)| !seen.insert((*kind, name))) {
            return Err(format!("a resolution adds the external {kind:?} {name} twice"));
        }
        if let Some(&(from, to, _)) =
            resolution.added.iter().find(|&&(from, to, _)| from as usize >= all || to as usize >= all)
        {
            return Err(format!("a resolution adds an edge {from} -> {to} in a graph of {all} nodes"));
        }
        // This graph has no external node before resolution, so each is new.
        for (at, (kind, name, language)) in resolution.externals.iter().enumerate() {
            let id = self.graph.external(*kind, name, *language);
            debug_assert_eq!(id.index(), nodes + at);
        }
        for (from, to, edge) in resolution.added {
            self.graph.add_edge(NodeId::new(from as usize), NodeId::new(to as usize), edge);
        }
        self.resolution = Some(resolution.stats);
        Ok(())
    }

    /// Resolves and links tests here, unless that is done.
    pub fn resolve_here(&mut self, observer: &mut dyn Observer) {
        if self.resolution.is_some() {
            return;
        }
        let mark = observer.now_ms();
        observer.progress(Stage::Resolve, 0, 1);
        self.resolution =
            Some(resolve_graph(&mut self.graph, &self.paths, &self.texts, &self.parsed, &self.nodes, &self.config));
        observer.progress(Stage::Resolve, 1, 1);
        self.timings.resolve = observer.now_ms() - mark;
    }

    /// Builds the lexical index, unless it is built.
    pub fn build_retrieval(&mut self, observer: &mut dyn Observer) {
        if self.retrieval.is_some() {
            return;
        }
        let mark = observer.now_ms();
        observer.progress(Stage::Index, 0, self.graph.node_count());
        let texts = GraphTexts { graph: &self.graph, texts: &self.texts, line_terms: Some(&self.line_terms) };
        self.retrieval = Some(Retrieval::build(&texts));
        self.line_terms = Vec::new();
        observer.progress(Stage::Index, self.graph.node_count(), self.graph.node_count());
        self.timings.index = observer.now_ms() - mark;
    }

    /// The index: resolves here and builds the lexical index, whichever of
    /// the two has not been done. When resolution ran elsewhere, its stage
    /// time is from `resolution_started` (the job's handing out) to now.
    pub fn finish(mut self, observer: &mut dyn Observer) -> Index {
        self.resolve_here(observer);
        self.graph.shrink_to_fit(); // no edge is added after this
        self.build_retrieval(observer);
        let Graphed {
            name,
            options,
            start,
            mut timings,
            paths,
            texts,
            skipped,
            errors,
            graph,
            resolution,
            retrieval,
            ..
        } = self;
        timings.total = observer.now_ms() - start;
        let by_path = paths.into_iter().enumerate().map(|(at, path)| (path, at as u32)).collect();
        let resolution = resolution.expect("resolved above");
        let summary = IndexSummary::new(&name, &graph, skipped, errors, resolution, timings);
        let retrieval = retrieval.expect("built above");
        Index { graph, retrieval, texts, by_path, summary, options, embedding_model: None }
    }

    /// Records how long resolution elsewhere took, as its stage's time.
    pub fn set_resolve_ms(&mut self, ms: f64) {
        self.timings.resolve = ms;
    }
}

/// Resolution and test linking over a graph just built from `parsed`.
fn resolve_graph(
    graph: &mut CodeGraph,
    paths: &[String],
    texts: &[String],
    parsed: &[(Language, FileFacts)],
    nodes: &[FileNodes],
    config: &ProjectConfig,
) -> fathom_resolve::Stats {
    let sources: Vec<ResolveInput<'_>> = paths
        .iter()
        .zip(parsed)
        .zip(nodes)
        .map(|((path, (language, facts)), nodes)| ResolveInput { path, language: *language, facts, nodes })
        .collect();
    let stats = fathom_resolve::resolve(graph, &sources, config);
    fathom_tests::link(graph, texts);
    stats
}

/// A worker's half of resolution: builds the graph of a
/// [`Graphed::resolution_job`], resolves it and links tests, and answers
/// with what that added, for [`Graphed::accept_resolution`].
pub fn resolve_job_bytes(job: &[u8]) -> Result<Vec<u8>, String> {
    let job: Job = postcard::from_bytes(job).map_err(|e| format!("a resolution job is undecodable: {e}"))?;
    let inputs: Vec<FileInput<'_>> = job
        .files
        .iter()
        .map(|f| FileInput { path: &f.path, language: f.language, text: &f.text, facts: &f.facts })
        .collect();
    let (mut graph, nodes) = CodeGraph::build(&inputs, &mut |_, _| {});
    drop(inputs);
    let config = ProjectConfig::read(job.configs.iter().map(|(path, text)| (path.as_str(), text.as_str())));
    let (before_nodes, before_edges) = (graph.node_count(), graph.edge_count());
    let (paths, rest): (Vec<String>, Vec<(String, (Language, FileFacts))>) =
        job.files.into_iter().map(|f| (f.path, (f.text, (f.language, f.facts)))).unzip();
    let (texts, parsed): (Vec<String>, Vec<(Language, FileFacts)>) = rest.into_iter().unzip();
    let stats = resolve_graph(&mut graph, &paths, &texts, &parsed, &nodes, &config);
    let externals = (before_nodes..graph.node_count())
        .map(|at| {
            let node = graph.node(NodeId::new(at));
            (node.kind, node.qualified_name.clone(), node.language)
        })
        .collect();
    let added = (before_edges..graph.edge_count())
        .map(|at| {
            let (from, to, edge) = graph.edge(EdgeId::new(at));
            (from.index() as u32, to.index() as u32, *edge)
        })
        .collect();
    let resolution = Resolution { nodes: before_nodes as u32, edges: before_edges as u32, externals, added, stats };
    postcard::to_allocvec(&resolution).map_err(|e| e.to_string())
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
