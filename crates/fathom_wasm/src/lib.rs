//! The browser's view of Fathom: one [`Workspace`] per worker, each method a
//! thin call into `fathom_engine` whose result crosses to JavaScript as a
//! plain serde value. If a method here grows past a screen, its logic
//! belongs in a core crate.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use fathom_engine::split::{Need, SplitReader, Step};
use fathom_engine::store::ItemRef;
use fathom_engine::tests_for::Change;
use fathom_engine::{Index, Observer, Options, SearchOptions, Stage, pipeline};
use fathom_static::MINILM_DIM as DIM;
use fathom_static::StaticModel;
use js_sys::Function;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// The system allocator, counted: `heapStats`, and what indexing measures.
#[global_allocator]
static ALLOCATOR: fathom_engine::heap::Counted = fathom_engine::heap::Counted;

/// The viewer (built without grammars) reads bundles and indexes nothing:
/// its calls that would parse, index or embed refuse at once, so none of
/// that code is linked into it (the linker drops what nothing reaches).
macro_rules! viewer_refuses {
    ($what:literal) => {
        #[cfg(not(feature = "grammars"))]
        return Err(JsError::new(concat!(
            $what,
            ": this is the viewer, which reads prebuilt bundles and indexes, parses and embeds nothing"
        )));
    };
}

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
export type Stage = "read" | "parse" | "graph" | "resolve" | "index" | "embed";
export interface Progress { stage: Stage; done: number; total: number; }
/** An archive's top-level folder, as a survey counts it. */
export interface FolderSize { path: string; files: number; bytes: number; }
/** What an archive holds for analysis, read from its listing alone. */
export interface Survey { files: number; bytes: number; folders: FolderSize[]; }
/** What indexing an archive would take, known before reading it. */
export interface Plan {
  survey: Survey;
  archive_bytes: number;
  /** All of it indexed: base_heap_bytes plus every folder's. */
  estimated_heap_bytes: number;
  /** What any subset needs: the archive itself. */
  base_heap_bytes: number;
  /** What indexing each of survey.folders adds, in its order. */
  folder_heap_bytes: number[];
}
/** A repository read and held for parse workers: source files and their bytes. */
export interface StagedInfo { files: number; bytes: number; }
/** A wasm instance's memory: linear memory (its peak: it only grows) and the allocator's live bytes, now and at most. */
export interface HeapStats { linear_bytes: number; live_bytes: number; peak_live_bytes: number; }

export type SkipReason =
  | "vendored" | "generated" | "binary" | "too_large" | "unsupported"
  | "encrypted" | "unreadable" | "limit" | "excluded";
export interface Skipped { path: string; reason: SkipReason; detail: string; }
/** A problem with one file; the file is still indexed. */
export interface FileError { path: string; message: string; line: number | null; }
/** Milliseconds spent in each stage. */
export interface Timings { read: number; parse: number; graph: number; resolve: number; index: number; total: number; }
/** How many imports and calls resolved, and how. */
export interface ResolutionStats {
  imports: number; imports_internal: number; imports_external: number;
  calls: number; calls_resolved: number; calls_ambiguous: number; calls_external: number; calls_unresolved: number;
}

/** An item of a split bundle a step waits for: `path` under the bundle's folder, its length and SHA-256's first 8 bytes in hex. */
export interface SplitNeed { path: string; hash: string; bytes: number; plain: number; what: string; offset?: number | null; length?: number | null; run?: number | null; }
/** A question over a split bundle: its answer, or the items to fetch and `supply` first. */
export type SplitStep<T> = { needs: SplitNeed[] } | { ready: T };
/** What a split bundle's reader has fetched: items and bytes, in all and by family. */
export interface SplitFetched { items: number; bytes: number; postings: number; names: number; nodes: number; edges: number; more: number; files: number; meaning: number; summary: number; waves: number; }

export interface IndexSummary {
  archive: string;
  /** Source files parsed. */
  files: number;
  /** Graph nodes other than modules. */
  symbols: number;
  edges: number;
  /** Files parsed, by language. */
  languages: Record<string, number>;
  /** Graph nodes defined in the archive, by kind. */
  kinds: Record<string, number>;
  /** Definitions (the `symbols`), by language. */
  symbols_by_language: Record<string, number>;
  /** Nodes standing for things outside the archive. */
  external: number;
  /** Edges by type, e.g. {"CALLS": 120}. */
  edge_types: Record<string, number>;
  resolution: ResolutionStats;
  skipped: Skipped[];
  errors: FileError[];
  timings_ms: Timings;
  /** What SCIP indexes gave the graph, when it was indexed with any. */
  scip?: ScipReport | null;
}

/** One SCIP index read: what it was, and how its documents matched the files. */
export interface ScipSource {
  name: string;
  tool: string;
  version: string;
  documents: number;
  /** Documents matched to a file and used. */
  matched: number;
  /** Documents of another revision (their first paths, and how many). */
  stale: string[];
  stale_count: number;
  /** Documents with no such file in the archive. */
  unmatched: string[];
  unmatched_count: number;
}
/** How far Fathom's own edges of one type agreed with the index. */
export interface KindAgreement {
  judged: number;
  agreed: number;
  ambiguous: number;
  ambiguous_agreed: number;
  index_edges: number;
  found: number;
  references_elsewhere: number;
  wrong_by_cause: Record<string, number>;
  missed_by_cause: Record<string, number>;
}
export interface ScipReport {
  sources: ScipSource[];
  /** The files whose references came from an index. */
  covered: string[];
  definitions: number;
  definitions_unmatched: number;
  /** Edges the indexes added, by type. */
  added: Record<string, number>;
  /** Inferred calls the indexes confirmed, and those they contradicted (dropped). */
  confirmed: number;
  dropped: number;
  unresolved: number;
  agreement: { calls: KindAgreement; imports: KindAgreement };
}

export type SymbolKind =
  | "module" | "package" | "class" | "function" | "method" | "field" | "global_variable" | "annotation";
export type MatchKind = "exact" | "prefix" | "substring";
export interface SearchHit {
  /** Qualified name, e.g. "pkg.calc.Calculator.add". */
  symbol: string;
  name: string;
  kind: SymbolKind;
  language: string;
  /** Path in the archive, without the archive's single top-level folder. */
  file: string;
  /** 1-based, inclusive. */
  start_line: number;
  end_line: number;
  /** 0-based, half-open, over the file's UTF-8 text. */
  start_byte: number;
  end_byte: number;
  /** The fused score: reciprocal ranks, weighted, plus graph expansion. */
  score: number;
  /** How the name matched the query, when it did. */
  match: MatchKind | null;
  explain: Explain;
  /** The lines that show why it matched; marks are [line index, start, end] in UTF-16 units. */
  snippet: { start_line: number; lines: string[]; marks: [number, number, number][] };
}

export type SearchMode = "lexical" | "dense" | "hybrid";
export interface Weights { lexical: number; dense: number; name: number; trace: number; graph: number; }
export interface SearchOptions {
  k: number;
  mode: SearchMode;
  weights: Weights;
  /** Expand through CALLS, CONTAINS, INHERITS and IMPORTS one hop. */
  expand: boolean;
  min_similarity: number;
  filter: Partial<SearchFilter>;
  /** Read a query shaped like a bug report (lines, a traceback, code) as one: files by all it says. On by default. */
  read_report: boolean;
}
/** Narrows a search. Empty lists keep everything; `path` is a glob or a substring. */
export interface SearchFilter {
  languages: string[];
  kinds: string[];
  path: string | null;
  tests: "include" | "exclude" | "only" | "runnable";
}
/** Why a hit ranks where it does. Ranks are 1-based, per lane. */
export interface Explain {
  lexical_rank: number | null;
  dense_rank: number | null;
  name_rank: number | null;
  trace_rank: number | null;
  /** BM25 score of the best lexical chunk. */
  bm25: number | null;
  /** Cosine similarity of the best chunk to the query. */
  similarity: number | null;
  /** Query terms found in the best lexical chunk. */
  matched_terms: string[];
  lanes: { lexical: number; dense: number; name: number; trace: number };
  graph: { from: string; edge: string; outgoing: boolean; confidence: number; score: number } | null;
  /** Lines of the chunk that matched best (a window of a long body). */
  chunk_lines: [number, number] | null;
  /** The hit's file's role, where it is not the project's own source. */
  role?: FileRole;
}
/** What a file is: `fathom_search::roles::Role`, beside source. */
export type FileRole = 'test' | 'docs' | 'build' | 'vendored' | 'generated';
export interface Citation { symbol: string; kind: SymbolKind; start_line: number; end_line: number; }
export interface FileHit { file: string; language: string | null; score: number; symbols: Citation[]; }
export interface SearchParams {
  rrf_k: number;
  weights: Weights;
  bm25: { k1: number; b: number; avgdl: number; name_boost: number; documents: number };
  hnsw: { m: number; ef_construction: number; ef_search: number; points: number; dim: number } | null;
  /** How scores inside each lane shape its RRF shares in hybrid mode. */
  fusion: {
    lexical_score_exponent: number;
    dense_score_exponent: number;
    dense_confidence_pivot: number;
    dense_confidence_exponent: number;
    dense_confidence_cap: number;
  };
  chunks: number;
  embedded: number;
  /** The dense lane that took part, if any. */
  meaning: Meaning | null;
}
export interface SearchResults {
  query: string;
  /** The mode that ran: hybrid runs as lexical until embeddings are ready. */
  mode: SearchMode;
  note: string | null;
  hits: SearchHit[];
  files: FileHit[];
  params: SearchParams;
}
export interface PendingChunk { chunk: number; hash: string; }
/**
 * Which lane reads meaning for a search: MiniLM's over every chunk; the
 * static table's until MiniLM's is built; or MiniLM's over the question's
 * candidates beside the static table's.
 */
export type Meaning = "minilm" | "static" | "minilm_candidates";
export interface EmbeddingStatus {
  chunks: number; embedded: number; dense_ready: boolean; static_ready: boolean;
  /** The table a bundle's static vectors were made with, while they wait for it (buildStatic then takes them as they are). */
  static_stored: string | null;
}
/** The static lane's table, loaded. */
export interface StaticInfo { model: string; dim: number; vocabulary: number; }

/** A node as answers cite it. */
export interface NodeRef {
  id: number; kind: SymbolKind; name: string; qualified_name: string;
  file: string | null; start_line: number; end_line: number; is_external: boolean;
}
/** One edge of an answer, in its own direction. */
export interface Hop {
  from: NodeRef; to: NodeRef; type: string; confidence: number; reason: string; line: number | null;
}
/** A node reached by a traversal: its depth, the path's confidence, and the path. */
export interface Reached { node: NodeRef; depth: number; confidence: number; path: Hop[]; }
export type Direction = "outgoing" | "incoming" | "both";
/** A symbol with its context. */
export interface SymbolContext {
  symbol: NodeRef; class_kind: string | null; signature: string | null; docstring: string | null;
  parameters: string[]; return_type: string | null; modifiers: string[]; visibility: string | null;
  decorators: string[]; is_test: boolean; is_constructor: boolean; cyclomatic_complexity: number | null;
  loc: number | null; fan_in: number; fan_out: number; parent: NodeRef | null; members: NodeRef[];
  /** For a declaration, the definition it declares; for a definition, its declarations (prototypes, `.d.ts`). */
  declares: NodeRef | null; declarations: NodeRef[];
  callers: Hop[]; callees: Hop[]; tests: Reached[]; code: string | null;
}

/** An indexed file, as the quick-open lists it. */
export interface FileInfo { path: string; language: string; lines: number; definitions: number; }
/**
 * The repository as a map, in columns (one entry per node): directories,
 * files, definitions and members with positions from the containment tree.
 * `kind` indexes `kinds`, `group` indexes `groups`, edges' `kind` indexes
 * `edge_kinds`; `parent` is -1 at the top; `level` is 0 directory, 1 file,
 * 2 definition, 3 member.
 */
export interface GraphMap {
  kinds: string[]; edge_kinds: string[]; groups: string[];
  nodes: {
    label: string[]; key: string[]; kind: number[]; level: number[]; parent: number[]; group: number[];
    x: number[]; y: number[]; size: number[]; file: string[]; line: number[];
    /** Whether the node's file is test code (false for directories). */
    test: boolean[];
  };
  edges: { source: number[]; target: number[]; kind: number[] };
}
/** Syntax highlighting: spans are [line (1-based), start, end, class index], columns in UTF-16 units. */
export interface Highlights { classes: string[]; spans: [number, number, number, number][]; truncated: boolean; }
/** Where an identifier is defined, and how that was found. */
export interface Definition {
  symbol: string; name: string; kind: SymbolKind; file: string | null; start_line: number; end_line: number;
  is_external: boolean; found_by: "definition" | "edge" | "name"; edge_type: string | null; edge_line: number | null;
  reason: string; confidence: number;
}
/** A place that refers to a symbol. */
export interface Reference {
  symbol: string; from: string; from_kind: SymbolKind; file: string; line: number; column: number | null;
  type: string; confidence: number; reason: string;
}
/** A feature card: see `Workspace.featureCard`. */
export interface FeatureCard {
  query: string;
  mode: SearchMode;
  /** `overloads`: definitions sharing its name and kind in its class or module, itself included (the card shows the best-ranked). */
  symbols: { symbol: NodeRef; score: number; signature: string | null; doc: string | null; language: string; code: string | null; overloads: number }[];
  /** Public functions and methods nothing in the project calls that reach the symbols; `calls` to the nearest, 0 for a symbol that is one itself. */
  entry_points: { symbol: NodeRef; reaches: string[]; calls: number }[];
  /** Builder, options and configuration types linked to the symbols; config keys and environment variables their code reads. */
  settings: { name: string; kind: "type" | "key" | "environment"; file: string; line: number; used_by: string }[];
  /** The symbols' directory, its source files, and the directories it depends on and is used by. */
  placement: { directory: string; files: number; also: string[]; depends_on: { directory: string; edges: number }[]; used_by: { directory: string; edges: number }[] } | null;
  /** The entry points, settings and placement as sentences, names in backticks (the Markdown's words). */
  sentences: { entry_points: string[]; settings: string[]; placement: string[] };
  connectors: NodeRef[];
  edges: Hop[];
  /** Tests that reach the symbols through calls, then those the question matched (`depth` 0). */
  tests: Reached[];
  summary: string[];
  markdown: string;
  tokens: number;
  budget: number;
  omitted_code: string[];
}
/** A change to recommend tests for: any mix of a unified diff, a description and symbols. */
export interface Change { diff?: string | null; text?: string | null; symbols?: string[]; k?: number | null; }
/** A test recommended for a change, with its evidence. Ranks are 1-based, per lane. */
export interface RecommendedTest {
  test: NodeRef; score: number;
  graph_rank: number | null; lexical_rank: number | null; dense_rank: number | null;
  /** The product of the confidences along `path`. */
  graph_score: number | null;
  /** From the change to the tested definition, then the `TESTS` edge. */
  path: Hop[];
  matched_terms: string[];
  similarity: number | null;
}
/** Tests to run for a change and what else it could break: see `Workspace.testsFor`. */
export interface TestsFor {
  /** The definitions the change was read as, and from which input. */
  changed: { symbol: NodeRef; from: "diff" | "symbol" | "text"; weight: number }[];
  /** Best first; empty when it abstains. */
  tests: RecommendedTest[];
  /** The dependents of the changed definitions (4 hops), by package. */
  impact: { package: string; dependents: Reached[] }[];
  abstained: boolean;
  /** Why it abstained, or what of the input it could not use. */
  notes: string[];
}
/** A Cypher query's answer. `truncated` says the default LIMIT or the row cap cut it. */
export interface QueryResult { columns: string[]; rows: unknown[][]; truncated: boolean; }

/** The graph's labels, properties, edge types and edge reasons: `schema()`. */
export interface GraphSchema {
  version: number;
  node_labels: { label: string; description: string; properties: string[] }[];
  edge_types: { type: string; description: string; properties: string[] }[];
  reasons: { reason: string; description: string }[];
  class_kinds: string[];
}
"#;

/// The graph schema: node labels with their properties, edge types, and the
/// reasons an inferred edge may give.
#[wasm_bindgen(unchecked_return_type = "GraphSchema")]
pub fn schema() -> Result<JsValue, JsError> {
    to_js(&fathom_engine::schema())
}

/// The session state of one browser worker: the current index, if any,
/// and the static lane's table once loaded. MiniLM is not here: it is a
/// module of its own (`fathom_wasm_minilm`), loaded only when it runs, whose
/// vectors the worker hands over (`setVectors`, and each search's
/// `queryVector`).
#[wasm_bindgen]
pub struct Workspace {
    state: Rc<RefCell<State>>,
}

// `inventory` (under burn's cubecl) registers with static constructors.
// Unless the module calls them itself, wasm-ld wraps *every* export in a
// call to all of them: each call into the engine, and each JsValue it drops,
// ran every constructor again (a 100k-node map took minutes instead of a
// fraction of a second). Calling them once here, at instantiation, stops
// that wrapping; `tests/e2e` and `make bench` would show the regression.
#[cfg(target_arch = "wasm32")]
unsafe extern "C" {
    fn __wasm_call_ctors();
}

#[cfg(target_arch = "wasm32")]
#[wasm_bindgen(start)]
fn start() {
    // SAFETY: wasm-ld synthesizes this; it runs each static constructor, and
    // this is its only caller, once, before any other export runs.
    unsafe { __wasm_call_ctors() }
    // Per-file time budgets while parsing read the page's clock.
    fathom_engine::set_parse_clock(js_sys::Date::now);
}

#[derive(Default)]
struct State {
    index: Option<Index>,
    /// A split bundle read in parts, in place of `index`.
    split: Option<SplitReader>,
    /// A repository read and waiting for its parses (`stageZip`).
    staged: Option<pipeline::Staged>,
    /// The first files of the archive being read, parsed ahead (`sampleZip`).
    sample: Option<pipeline::Sample>,
    /// The static lane's table: every new index builds its lane from it.
    statics: Option<Arc<StaticModel>>,
    /// Bumped by every new index, so an embedding batch that finishes after
    /// its index was replaced is dropped.
    generation: u64,
}

#[wasm_bindgen]
impl Workspace {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Workspace {
        static HOOK: std::sync::Once = std::sync::Once::new();
        HOOK.call_once(|| {
            std::panic::set_hook(Box::new(|info| {
                console_error_panic_hook::hook(info);
                // The worker names the panic when it reports the trap that follows.
                let _ = js_sys::Reflect::set(&js_sys::global(), &"fathomPanic".into(), &info.to_string().into());
            }))
        });
        Workspace { state: Rc::default() }
    }

    /// Reads an archive held in memory (a zip, tar or tar.gz, as its first
    /// bytes say) and holds it, unparsed, for parse workers: `stagedShares`,
    /// `stagedShare`, `acceptParsed`, then `finishStaged`, which builds the
    /// index and replaces the current one only if it succeeds. `on_progress`
    /// is called synchronously with a `Progress` as reading advances. Paths
    /// matching `exclude` (globs, as `fathom index --exclude` takes them)
    /// are left out. A new staging replaces one never finished.
    #[wasm_bindgen(js_name = stageZip, unchecked_return_type = "StagedInfo")]
    #[cfg_attr(not(feature = "grammars"), allow(unreachable_code, unused_variables))]
    pub fn stage_zip(
        &mut self,
        name: &str,
        bytes: &[u8],
        exclude: Vec<String>,
        #[wasm_bindgen(unchecked_param_type = "(progress: Progress) => void")] on_progress: Function,
        #[wasm_bindgen(js_name = heapBudget)] heap_budget: Option<f64>,
    ) -> Result<JsValue, JsError> {
        viewer_refuses!("stage_zip");
        let mut options = options_excluding(&exclude)?;
        options.limits.budget = heap_budget.filter(|&b| b > 0.0).map(measured_budget);
        let staged = pipeline::stage_zip(name, bytes, &options, &mut JsObserver { on_progress })?;
        self.hold(staged)
    }

    /// Reads about `bytes_wanted` of an archive's first source files, under
    /// the rules `stageZip` applies, and holds them for parse workers to
    /// start on while `stageZip` reads the rest: `sampleShares`,
    /// `sampleShare`, then, once staged, `acceptSample`. Returns how many
    /// files it holds; an archive it cannot sample gives none.
    #[wasm_bindgen(js_name = sampleZip)]
    #[cfg_attr(not(feature = "grammars"), allow(unreachable_code, unused_variables))]
    pub fn sample_zip(&mut self, bytes: &[u8], exclude: Vec<String>, bytes_wanted: u32) -> Result<usize, JsError> {
        viewer_refuses!("sample_zip");
        let options = options_excluding(&exclude)?;
        let sample = pipeline::sample_zip(bytes, &options, bytes_wanted.into());
        let files = sample.files().len();
        self.state.borrow_mut().sample = Some(sample);
        Ok(files)
    }

    /// The sampled files in `n` shares of about equal bytes, as lists of positions.
    #[wasm_bindgen(js_name = sampleShares, unchecked_return_type = "Uint32Array[]")]
    pub fn sample_shares(&self, n: usize) -> Result<JsValue, JsError> {
        let state = self.state.borrow();
        let sample = state.sample.as_ref().ok_or_else(no_sample)?;
        Ok(position_lists(sample.shares(n)))
    }

    /// The sampled files at `positions`, encoded for `parseShare`.
    #[wasm_bindgen(js_name = sampleShare)]
    pub fn sample_share(&self, positions: Vec<u32>) -> Result<Vec<u8>, JsError> {
        let state = self.state.borrow();
        state.sample.as_ref().ok_or_else(no_sample)?.share(&positions).map_err(|e| JsError::new(&e))
    }

    /// Takes a parse worker's answer for the sampled files at `positions`
    /// into the staged repository, where path and text agree; returns how
    /// many it took.
    #[wasm_bindgen(js_name = acceptSample)]
    #[cfg_attr(not(feature = "grammars"), allow(unreachable_code, unused_variables))]
    pub fn accept_sample(&self, positions: Vec<u32>, parsed: &[u8]) -> Result<usize, JsError> {
        viewer_refuses!("accept_sample");
        let parsed = pipeline::decode_parsed(parsed).map_err(|e| JsError::new(&e))?;
        let mut state = self.state.borrow_mut();
        let State { staged, sample, .. } = &mut *state;
        let sample = sample.as_ref().ok_or_else(no_sample)?;
        staged.as_mut().ok_or_else(no_staged)?.accept_sample(sample, &positions, parsed).map_err(|e| JsError::new(&e))
    }

    /// Reads a dropped folder and holds it, unparsed: file `i` is
    /// `paths[i]`, its bytes `data[ends[i-1]..ends[i]]` (one buffer crosses
    /// into wasm, not one per file).
    #[wasm_bindgen(js_name = stageFiles, unchecked_return_type = "StagedInfo")]
    #[cfg_attr(not(feature = "grammars"), allow(unreachable_code, unused_variables))]
    pub fn stage_files(
        &mut self,
        name: &str,
        paths: Vec<String>,
        data: &[u8],
        ends: Vec<u32>,
        #[wasm_bindgen(unchecked_param_type = "(progress: Progress) => void")] on_progress: Function,
    ) -> Result<JsValue, JsError> {
        viewer_refuses!("stage_files");
        let files = split_files(paths, data, ends)?;
        let staged = pipeline::stage_files(name, files, &Options::default(), &mut JsObserver { on_progress });
        self.hold(staged)
    }

    /// The held files split into `n` shares of about equal bytes, as lists
    /// of positions.
    #[wasm_bindgen(js_name = stagedShares, unchecked_return_type = "Uint32Array[]")]
    pub fn staged_shares(&self, n: usize) -> Result<JsValue, JsError> {
        let state = self.state.borrow();
        Ok(position_lists(state.staged.as_ref().ok_or_else(no_staged)?.shares(n)))
    }

    /// The held files at `positions`, encoded for `parseShare`.
    #[wasm_bindgen(js_name = stagedShare)]
    pub fn staged_share(&self, positions: Vec<u32>) -> Result<Vec<u8>, JsError> {
        let state = self.state.borrow();
        state.staged.as_ref().ok_or_else(no_staged)?.share(&positions).map_err(|e| JsError::new(&e))
    }

    /// Takes a parse worker's answer for the files at `positions`.
    #[wasm_bindgen(js_name = acceptParsed)]
    #[cfg_attr(not(feature = "grammars"), allow(unreachable_code, unused_variables))]
    pub fn accept_parsed(&self, positions: Vec<u32>, parsed: &[u8]) -> Result<(), JsError> {
        viewer_refuses!("accept_parsed");
        let parsed = pipeline::decode_parsed(parsed).map_err(|e| JsError::new(&e))?;
        let mut state = self.state.borrow_mut();
        state.staged.as_mut().ok_or_else(no_staged)?.accept(&positions, parsed).map_err(|e| JsError::new(&e))
    }

    /// A SCIP index dropped beside the staged archive (an `index.scip` inside
    /// it is found while staging): read into the graph after resolution,
    /// before any the archive holds. One that cannot be read is listed with
    /// the files left out, with its cause, and the graph stays Fathom's own.
    #[wasm_bindgen(js_name = attachScip)]
    #[cfg_attr(not(feature = "grammars"), allow(unreachable_code, unused_variables))]
    pub fn attach_scip(&self, name: &str, bytes: &[u8]) -> Result<(), JsError> {
        viewer_refuses!("attach_scip");
        let mut state = self.state.borrow_mut();
        state.staged.as_mut().ok_or_else(no_staged)?.attach_scip(name, bytes);
        Ok(())
    }

    /// Builds the index from the held files: whatever no worker parsed is
    /// parsed here. Replaces the current index.
    #[wasm_bindgen(js_name = finishStaged, unchecked_return_type = "IndexSummary")]
    #[cfg_attr(not(feature = "grammars"), allow(unreachable_code, unused_variables))]
    pub fn finish_staged(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "(progress: Progress) => void")] on_progress: Function,
    ) -> Result<JsValue, JsError> {
        viewer_refuses!("finish_staged");
        let staged = {
            let mut state = self.state.borrow_mut();
            state.sample = None;
            state.staged.take().ok_or_else(no_staged)?
        };
        let index = staged.index(&mut JsObserver { on_progress });
        self.replace(index)
    }

    /// Searches: BM25, names and trace locations, and the embeddings once
    /// they are in; fused, expanded through the graph, every hit explained.
    /// `options` is a partial `SearchOptions`; `query_vector`, the query's
    /// MiniLM embedding (from MiniLM's module), once its index is built, or
    /// with `candidate_chunks` and `candidate_vectors` (MiniLM's vectors for
    /// the chunks `candidates` gave, end to end), before it is.
    #[wasm_bindgen(unchecked_return_type = "SearchResults")]
    pub fn search(
        &self,
        query: &str,
        #[wasm_bindgen(unchecked_param_type = "Partial<SearchOptions>")] options: JsValue,
        #[wasm_bindgen(js_name = queryVector)] query_vector: Option<Vec<f32>>,
        #[wasm_bindgen(js_name = candidateChunks)] candidate_chunks: Option<Vec<u32>>,
        #[wasm_bindgen(js_name = candidateVectors)] candidate_vectors: Option<Vec<f32>>,
    ) -> Result<JsValue, JsError> {
        let options = search_options(options)?;
        let candidates = with_vectors(candidate_chunks, candidate_vectors)?;
        self.read(|index| to_js(&index.search_with(query, &options, query_vector.as_deref(), candidates.as_deref())))
    }

    /// The chunks MiniLM should read for a question while its index is not
    /// built (`Index::candidates`): `{chunk, hash}` each, best first, to
    /// look up in the cache by hash, embed the rest (`chunkTexts`), and pass
    /// to `search`. Empty where MiniLM would add nothing there.
    #[wasm_bindgen(unchecked_return_type = "PendingChunk[]")]
    pub fn candidates(
        &self,
        query: &str,
        #[wasm_bindgen(unchecked_param_type = "Partial<SearchOptions>")] options: JsValue,
    ) -> Result<JsValue, JsError> {
        let options = search_options(options)?;
        self.read(|index| {
            let wanted: Vec<PendingChunk> = index
                .candidates(query, &options)
                .into_iter()
                .filter_map(|chunk| Some(PendingChunk { chunk, hash: index.chunk_hash(chunk)? }))
                .collect();
            to_js(&wanted)
        })
    }

    /// Loads the static lane's table (`minilm-l6-v2.static-v1.safetensors`)
    /// and MiniLM's tokenizer, whose pinned hash it checks. A few MB, read in
    /// milliseconds: the page loads it at once, and MiniLM's weights only
    /// when MiniLM is about to run.
    #[wasm_bindgen(js_name = loadStatic, unchecked_return_type = "StaticInfo")]
    #[cfg_attr(not(feature = "grammars"), allow(unreachable_code, unused_variables))]
    pub fn load_static(&self, table: &[u8], tokenizer: &[u8]) -> Result<JsValue, JsError> {
        viewer_refuses!("load_static");
        let model = fathom_static::load_checked(table, tokenizer).map_err(|e| JsError::new(&e.to_string()))?;
        let info = StaticInfo { model: model.id().to_owned(), dim: model.dim(), vocabulary: model.vocabulary() };
        self.state.borrow_mut().statics = Some(model);
        to_js(&info)
    }

    /// Embeds every chunk of the current index with the static table (a
    /// lookup and a mean per chunk) and holds their vectors: hybrid search
    /// reads meaning from them until MiniLM's index is built.
    #[wasm_bindgen(js_name = buildStatic, unchecked_return_type = "EmbeddingStatus")]
    #[cfg_attr(not(feature = "grammars"), allow(unreachable_code, unused_variables))]
    pub fn build_static(&self) -> Result<JsValue, JsError> {
        viewer_refuses!("build_static");
        let mut state = self.state.borrow_mut();
        let model = state.statics.clone().ok_or_else(|| JsError::new("the static table is not loaded"))?;
        let index = state.index.as_mut().ok_or_else(no_index)?;
        index.build_static(model).map_err(|e| JsError::new(&e))?;
        to_js(&index.embedding_status())
    }

    /// The chunks still without a vector: `{chunk, hash}` for each, so the
    /// caller can look them up in its cache first. Shortest first, so that
    /// the batches the caller cuts from them pad little.
    #[wasm_bindgen(js_name = pendingChunks, unchecked_return_type = "PendingChunk[]")]
    pub fn pending_chunks(&self) -> Result<JsValue, JsError> {
        self.read(|index| {
            let mut pending = index.pending_chunks();
            pending.sort_by_cached_key(|&chunk| index.chunk_text(chunk).map_or(0, |t| t.len()));
            let pending: Vec<PendingChunk> = pending
                .into_iter()
                .filter_map(|chunk| Some(PendingChunk { chunk, hash: index.chunk_hash(chunk)? }))
                .collect();
            to_js(&pending)
        })
    }

    /// The current index's number: it changes whenever another index
    /// replaces it, so vectors embedded for one are never given to another.
    #[wasm_bindgen(getter)]
    pub fn generation(&self) -> f64 {
        self.state.borrow().generation as f64
    }

    /// The texts of the given chunks, as MiniLM embeds them.
    #[wasm_bindgen(js_name = chunkTexts)]
    pub fn chunk_texts(&self, chunks: Vec<u32>) -> Result<Vec<String>, JsError> {
        self.read(|index| {
            chunks
                .iter()
                .map(|&c| index.chunk_text(c as usize).ok_or_else(|| JsError::new(&format!("no chunk {c}"))))
                .collect()
        })
    }

    /// Records MiniLM's vectors (from its module, or a cache): `vectors`
    /// holds `chunks.length` vectors of `DIM` floats, end to end. With the
    /// `generation` they were asked for, they are dropped (and `false`
    /// returned) when another index has replaced that one.
    #[wasm_bindgen(js_name = setVectors)]
    pub fn set_vectors(&self, chunks: Vec<u32>, vectors: Vec<f32>, generation: Option<f64>) -> Result<bool, JsError> {
        let vectors = paired(&chunks, &vectors)?;
        let mut state = self.state.borrow_mut();
        if generation.is_some_and(|g| g != state.generation as f64) {
            return Ok(false);
        }
        let index = state.index.as_mut().ok_or_else(no_index)?;
        for (chunk, vector) in vectors {
            index.set_vector(chunk, vector);
        }
        Ok(true)
    }

    /// Builds the dense (HNSW) index over every embedded chunk; search is
    /// hybrid from then on.
    #[wasm_bindgen(js_name = buildDense, unchecked_return_type = "EmbeddingStatus")]
    #[cfg_attr(not(feature = "grammars"), allow(unreachable_code, unused_variables))]
    pub fn build_dense(&self) -> Result<JsValue, JsError> {
        viewer_refuses!("build_dense");
        let mut state = self.state.borrow_mut();
        let index = state.index.as_mut().ok_or_else(no_index)?;
        index.build_dense();
        to_js(&index.embedding_status())
    }

    #[wasm_bindgen(js_name = embeddingStatus, unchecked_return_type = "EmbeddingStatus")]
    pub fn embedding_status(&self) -> Result<JsValue, JsError> {
        self.read(|index| to_js(&index.embedding_status()))
    }

    /// Runs a read-only Cypher query. `params` is an object of `$parameters`.
    /// A refused or failing query throws an Error whose message gives the
    /// cause, the line and the column.
    #[wasm_bindgen(unchecked_return_type = "QueryResult")]
    pub fn query(
        &self,
        text: &str,
        #[wasm_bindgen(unchecked_param_type = "Record<string, unknown>")] params: JsValue,
    ) -> Result<JsValue, JsError> {
        let params = query_params(params)?;
        self.read(|index| to_js(&index.query(text, &params)?))
    }

    /// Who calls `symbol`, up to `depth` hops (1 to 4).
    #[wasm_bindgen(unchecked_return_type = "Reached[]")]
    pub fn callers(&self, symbol: &str, depth: u32) -> Result<JsValue, JsError> {
        self.read(|index| to_js(&index.callers(symbol, depth)?))
    }

    /// What `symbol` calls, up to `depth` hops (1 to 4).
    #[wasm_bindgen(unchecked_return_type = "Reached[]")]
    pub fn callees(&self, symbol: &str, depth: u32) -> Result<JsValue, JsError> {
        self.read(|index| to_js(&index.callees(symbol, depth)?))
    }

    /// What depends on `symbol` or anything it contains, up to `depth` hops.
    #[wasm_bindgen(unchecked_return_type = "Reached[]")]
    pub fn impact(&self, symbol: &str, depth: u32) -> Result<JsValue, JsError> {
        self.read(|index| to_js(&index.impact(symbol, depth)?))
    }

    /// The shortest chain of dependency edges between two symbols, or `null`.
    #[wasm_bindgen(unchecked_return_type = "Hop[] | null")]
    pub fn path(&self, from: &str, to: &str, depth: u32) -> Result<JsValue, JsError> {
        self.read(|index| to_js(&index.path(from, to, depth)?))
    }

    /// The edges at `symbol`, of the given types (all when empty).
    #[wasm_bindgen(unchecked_return_type = "Hop[]")]
    pub fn neighbors(
        &self,
        symbol: &str,
        types: Vec<String>,
        #[wasm_bindgen(unchecked_param_type = "Direction")] direction: &str,
    ) -> Result<JsValue, JsError> {
        let kinds = types
            .iter()
            .map(|t| {
                fathom_engine::EdgeKind::ALL
                    .into_iter()
                    .find(|k| k.label().eq_ignore_ascii_case(t))
                    .ok_or_else(|| JsError::new(&format!("unknown edge type `{t}`")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let direction = match direction {
            "outgoing" => fathom_engine::Direction::Outgoing,
            "incoming" => fathom_engine::Direction::Incoming,
            "both" => fathom_engine::Direction::Both,
            other => return Err(JsError::new(&format!("unknown direction `{other}`; use outgoing, incoming or both"))),
        };
        self.read(|index| to_js(&index.neighbors(symbol, &kinds, direction)?))
    }

    /// A symbol with its signature, docs, members, callers, callees, tests and code.
    #[wasm_bindgen(unchecked_return_type = "SymbolContext")]
    pub fn symbol(&self, symbol: &str) -> Result<JsValue, JsError> {
        self.read(|index| to_js(&index.symbol(symbol)?))
    }

    /// A feature card for a question: the best symbols, the edges between
    /// them, their code, the tests that reach them, a summary read off the
    /// graph, and Markdown for an LLM cut to `budget` estimated tokens.
    /// `query_vector` as for `search`.
    /// `candidateChunks` and `candidateVectors` as for `search`: the card is
    /// then about what the search put first.
    #[wasm_bindgen(js_name = featureCard, unchecked_return_type = "FeatureCard")]
    pub fn feature_card(
        &self,
        query: &str,
        budget: u32,
        #[wasm_bindgen(js_name = queryVector)] query_vector: Option<Vec<f32>>,
        #[wasm_bindgen(js_name = candidateChunks)] candidate_chunks: Option<Vec<u32>>,
        #[wasm_bindgen(js_name = candidateVectors)] candidate_vectors: Option<Vec<f32>>,
    ) -> Result<JsValue, JsError> {
        let candidates = with_vectors(candidate_chunks, candidate_vectors)?;
        self.read(|index| {
            to_js(&index.feature_card_with(query, query_vector.as_deref(), candidates.as_deref(), budget as usize))
        })
    }

    /// Tests to run for a change, ranked, each with its evidence trail, and
    /// the change's impact by package; abstains when the evidence is weak.
    /// `query_vector`, the description's MiniLM embedding, feeds the dense
    /// lane once MiniLM's index is built. A malformed diff throws the cause.
    #[wasm_bindgen(js_name = testsFor, unchecked_return_type = "TestsFor")]
    pub fn tests_for(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Change")] change: JsValue,
        #[wasm_bindgen(js_name = queryVector)] query_vector: Option<Vec<f32>>,
    ) -> Result<JsValue, JsError> {
        let change: Change =
            serde_wasm_bindgen::from_value(change).map_err(|e| JsError::new(&format!("bad change: {e}")))?;
        self.read(|index| {
            let found = index.tests_for(&change, query_vector.as_deref()).map_err(|e| JsError::new(&e.to_string()))?;
            to_js(&found)
        })
    }

    /// Syntax highlighting of an indexed file (tree-sitter queries), or
    /// `undefined` when no such file is indexed.
    #[wasm_bindgen(unchecked_return_type = "Highlights | undefined")]
    #[cfg_attr(not(feature = "grammars"), allow(unreachable_code, unused_variables))]
    pub fn highlight(&self, path: &str) -> Result<JsValue, JsError> {
        viewer_refuses!("highlight");
        self.read(|index| index.highlight(path).map_or(Ok(JsValue::UNDEFINED), |h| to_js(&h)))
    }

    /// Where the identifier at `line` (1-based) and `column` (0-based,
    /// UTF-16) of `path` is defined, best first; empty when nothing is found.
    #[wasm_bindgen(js_name = definitionAt, unchecked_return_type = "Definition[]")]
    #[cfg_attr(not(feature = "grammars"), allow(unreachable_code, unused_variables))]
    pub fn definition_at(&self, path: &str, line: u32, column: u32) -> Result<JsValue, JsError> {
        viewer_refuses!("definition_at");
        self.read(|index| to_js(&index.definition_at(path, line, column)?))
    }

    /// Every place that refers to a symbol, by file then line.
    #[wasm_bindgen(unchecked_return_type = "Reference[]")]
    pub fn references(&self, symbol: &str) -> Result<JsValue, JsError> {
        self.read(|index| to_js(&index.references(symbol)?))
    }

    /// The current index as a `.fathom` bundle.
    #[wasm_bindgen(js_name = exportBundle)]
    pub fn export_bundle(&self) -> Result<Vec<u8>, JsError> {
        self.read(|index| Ok(index.to_bundle()))
    }

    /// Panics, as a bug in the engine would: the test hook for how the page
    /// recovers from a trapped instance (`?test-hooks`).
    #[wasm_bindgen(js_name = debugPanic)]
    pub fn debug_panic(&self) {
        panic!("a panic forced by the test hook");
    }

    /// Replaces the index with a bundle's, after checking its version and
    /// checksum; a refused bundle leaves the current index in place.
    #[wasm_bindgen(js_name = importBundle, unchecked_return_type = "IndexSummary")]
    pub fn import_bundle(&mut self, bytes: &[u8]) -> Result<JsValue, JsError> {
        let index = fathom_engine::Index::from_bundle(bytes)?;
        self.replace(index)
    }

    /// Opens a split bundle (`fathom index --split`) from its root's bytes,
    /// fetched from `url`, in place of the current index; a refused root
    /// leaves it in place. Questions then go by steps: `searchStep` and
    /// `fileStep` answer, or name the items to fetch (under the root's
    /// folder) and `supply` first.
    #[wasm_bindgen(js_name = openSplit, unchecked_return_type = "IndexSummary")]
    pub fn open_split(&mut self, url: &str, root: &[u8]) -> Result<JsValue, JsError> {
        let reader = SplitReader::open(url, root)?;
        let summary = js_sys::JSON::parse(reader.summary_json())
            .map_err(|_| JsError::new(&format!("{url}: the root's summary is not JSON")))?;
        let mut state = self.state.borrow_mut();
        state.index = None;
        state.split = Some(reader);
        state.generation += 1;
        Ok(summary)
    }

    /// Whether the open split bundle carries the static lane: a search not
    /// by words alone reads its meaning once `readMeaning` is given the
    /// tokenizer.
    #[wasm_bindgen(js_name = splitHasMeaning)]
    pub fn split_has_meaning(&self) -> bool {
        self.state.borrow().split.as_ref().is_some_and(|reader| reader.root().meaning.is_some())
    }

    /// Reads the open split bundle's static lane from here on, queries
    /// embedded with `tokenizer` (MiniLM's `tokenizer.json`, checked against
    /// its pinned hash).
    #[wasm_bindgen(js_name = readMeaning)]
    pub fn read_meaning(&self, tokenizer: &[u8]) -> Result<(), JsError> {
        self.split(|reader| reader.read_meaning(tokenizer).map_err(|e| JsError::new(&e)))
    }

    /// A search of the split bundle, as `search`: its results, or the items
    /// it needs first. By meaning too once `readMeaning` was given.
    #[wasm_bindgen(js_name = searchStep, unchecked_return_type = "SplitStep<SearchResults>")]
    pub fn search_step(
        &self,
        query: &str,
        #[wasm_bindgen(unchecked_param_type = "Partial<SearchOptions>")] options: JsValue,
    ) -> Result<JsValue, JsError> {
        let options = search_options(options)?;
        self.split(|reader| step_js(reader.search_step(query, &options)))
    }

    /// A file's text from the split bundle, or the page to fetch first;
    /// `null` for a path no answer has named.
    #[wasm_bindgen(js_name = fileStep, unchecked_return_type = "SplitStep<string | null>")]
    pub fn file_step(&self, path: &str) -> Result<JsValue, JsError> {
        self.split(|reader| step_js(reader.file_step(path)))
    }

    /// A file's syntax colours from the split bundle (stored there, as the
    /// viewer has no grammars), or the items to fetch first; `null` for a
    /// path no answer has named.
    #[wasm_bindgen(js_name = highlightStep, unchecked_return_type = "SplitStep<Highlights | null>")]
    pub fn highlight_step(&self, path: &str) -> Result<JsValue, JsError> {
        self.split(|reader| step_js(reader.highlight_step(path)))
    }

    /// A symbol with its context from the split bundle, as `symbol`, or the
    /// items to fetch first.
    #[wasm_bindgen(js_name = symbolStep, unchecked_return_type = "SplitStep<SymbolContext>")]
    pub fn symbol_step(&self, symbol: &str) -> Result<JsValue, JsError> {
        self.split(|reader| answer_js(reader.symbol_step(symbol)))
    }

    /// Where a symbol is referred to, from the split bundle, as
    /// `references`, or the items to fetch first.
    #[wasm_bindgen(js_name = referencesStep, unchecked_return_type = "SplitStep<Reference[]>")]
    pub fn references_step(&self, symbol: &str) -> Result<JsValue, JsError> {
        self.split(|reader| answer_js(reader.references_step(symbol)))
    }

    /// Callers from the split bundle, as `callers`, or the items to fetch
    /// first.
    #[wasm_bindgen(js_name = callersStep, unchecked_return_type = "SplitStep<Reached[]>")]
    pub fn callers_step(&self, symbol: &str, depth: u32) -> Result<JsValue, JsError> {
        self.split(|reader| answer_js(reader.callers_step(symbol, depth)))
    }

    /// Callees from the split bundle, as `callees`, or the items to fetch
    /// first.
    #[wasm_bindgen(js_name = calleesStep, unchecked_return_type = "SplitStep<Reached[]>")]
    pub fn callees_step(&self, symbol: &str, depth: u32) -> Result<JsValue, JsError> {
        self.split(|reader| answer_js(reader.callees_step(symbol, depth)))
    }

    /// Impact from the split bundle, as `impact`, or the items to fetch
    /// first.
    #[wasm_bindgen(js_name = impactStep, unchecked_return_type = "SplitStep<Reached[]>")]
    pub fn impact_step(&self, symbol: &str, depth: u32) -> Result<JsValue, JsError> {
        self.split(|reader| answer_js(reader.impact_step(symbol, depth)))
    }

    /// A Cypher query over the split bundle, as `query`, or the items to
    /// fetch first (which the caller prices with `splitCost` before it
    /// fetches them: a query matching every node reads the whole graph).
    #[wasm_bindgen(js_name = queryStep, unchecked_return_type = "SplitStep<QueryResult>")]
    pub fn query_step(
        &self,
        text: &str,
        #[wasm_bindgen(unchecked_param_type = "Record<string, unknown>")] params: JsValue,
    ) -> Result<JsValue, JsError> {
        let params = query_params(params)?;
        self.split(|reader| answer_js(reader.query_step(text, &params)))
    }

    /// About how many bytes fetching `needs` (a step's wave) will take.
    #[wasm_bindgen(js_name = splitCost)]
    pub fn split_cost(
        &self,
        #[wasm_bindgen(unchecked_param_type = "SplitNeed[]")] needs: JsValue,
    ) -> Result<f64, JsError> {
        let needs: Vec<NeedJs> =
            serde_wasm_bindgen::from_value(needs).map_err(|e| JsError::new(&format!("bad items: {e}")))?;
        let items = needs.iter().filter_map(|n| ItemRef::from_hex(&n.hash, n.bytes, n.plain));
        let items: Vec<ItemRef> = items.collect();
        self.split(|reader| Ok(reader.cost(&items) as f64))
    }

    /// Hands the split bundle's reader an item a step asked for, which it
    /// checks (length, hash, decoding) before it keeps any of it.
    pub fn supply(
        &self,
        #[wasm_bindgen(unchecked_param_type = "SplitNeed")] need: JsValue,
        bytes: &[u8],
    ) -> Result<(), JsError> {
        let (_, item) = NeedJs::read(need)?;
        self.split(|reader| Ok(reader.supply(&item, bytes)?))
    }

    /// Every item of the open split bundle but its files', for a page that
    /// fetches it all ahead (to answer offline); the reader keeps none.
    #[wasm_bindgen(js_name = splitEveryItem, unchecked_return_type = "SplitNeed[]")]
    pub fn split_every_item(&self) -> Result<JsValue, JsError> {
        self.split(|reader| to_js(&reader.every_item().into_iter().map(NeedJs::of).collect::<Vec<_>>()))
    }

    /// Checks an item's bytes against its reference (length, hash or
    /// checksum) without reading them: what a page keeps offline is
    /// checked before it is kept.
    #[wasm_bindgen(js_name = splitCheck)]
    pub fn split_check(
        &self,
        #[wasm_bindgen(unchecked_param_type = "SplitNeed")] need: JsValue,
        bytes: &[u8],
    ) -> Result<(), JsError> {
        let (need, item) = NeedJs::read(need)?;
        self.split(|reader| Ok(reader.check(&need.what, &item, bytes)?))
    }

    /// The file items a node page (`need`, its `bytes`) names, once the page
    /// is checked; the reader keeps nothing of it.
    #[wasm_bindgen(js_name = splitFilesNamed, unchecked_return_type = "SplitNeed[]")]
    pub fn split_files_named(
        &self,
        #[wasm_bindgen(unchecked_param_type = "SplitNeed")] need: JsValue,
        bytes: &[u8],
    ) -> Result<JsValue, JsError> {
        let (_, item) = NeedJs::read(need)?;
        self.split(|reader| to_js(&reader.files_named(&item, bytes)?.into_iter().map(NeedJs::of).collect::<Vec<_>>()))
    }

    /// What the split bundle's reader has fetched so far; `null` without one.
    #[wasm_bindgen(js_name = splitFetched, unchecked_return_type = "SplitFetched | null")]
    pub fn split_fetched(&self) -> Result<JsValue, JsError> {
        self.state.borrow().split.as_ref().map_or(Ok(JsValue::NULL), |reader| to_js(&reader.fetched()))
    }

    /// What a question that reads the graph widely may fetch of a split
    /// bundle before the page asks its reader to allow more, in bytes.
    #[wasm_bindgen(js_name = splitAllowance)]
    pub fn split_allowance(&self) -> f64 {
        fathom_engine::split::ALLOWANCE as f64
    }

    /// The graph schema, as `schema()` gives it, for the query console.
    #[wasm_bindgen(js_name = graphSchema, unchecked_return_type = "GraphSchema")]
    pub fn graph_schema(&self) -> Result<JsValue, JsError> {
        schema()
    }

    /// Every indexed file with its language, lines and definitions.
    #[wasm_bindgen(unchecked_return_type = "FileInfo[]")]
    pub fn files(&self) -> Result<JsValue, JsError> {
        self.read(|index| to_js(&index.file_list()))
    }

    /// The repository map: positions, levels of detail, colour groups, edges.
    #[wasm_bindgen(js_name = graphMap, unchecked_return_type = "GraphMap")]
    pub fn graph_map(&self) -> Result<JsValue, JsError> {
        self.read(|index| to_js(&index.map()))
    }

    /// The text of an indexed file, or `undefined` if no such file was indexed.
    pub fn file(&self, path: &str) -> Result<Option<String>, JsError> {
        self.read(|index| Ok(index.file_text(path).map(str::to_owned)))
    }
}

impl Default for Workspace {
    fn default() -> Self {
        Workspace::new()
    }
}

impl Workspace {
    /// Makes `index` the current one and returns its summary.
    fn hold(&self, staged: pipeline::Staged) -> Result<JsValue, JsError> {
        let info = StagedInfo { files: staged.files().len(), bytes: staged.source_bytes() };
        self.state.borrow_mut().staged = Some(staged);
        to_js(&info)
    }

    fn replace(&self, index: Index) -> Result<JsValue, JsError> {
        let summary = to_js(index.summary())?;
        let mut state = self.state.borrow_mut();
        state.index = Some(index);
        state.split = None;
        state.generation += 1;
        Ok(summary)
    }

    fn read<T>(&self, f: impl FnOnce(&Index) -> Result<T, JsError>) -> Result<T, JsError> {
        let state = self.state.borrow();
        if state.split.is_some() {
            return Err(JsError::new(
                "this bundle is split, read in parts as questions need them: only search, opening files, a symbol, its callers, callees and impact read it so far",
            ));
        }
        f(state.index.as_ref().ok_or_else(no_index)?)
    }

    fn split<T>(&self, f: impl FnOnce(&mut SplitReader) -> Result<T, JsError>) -> Result<T, JsError> {
        let mut state = self.state.borrow_mut();
        f(state.split.as_mut().ok_or_else(|| JsError::new("no split bundle is open"))?)
    }
}

/// Chunks, each with its MiniLM vector.
type Vectors = Vec<(usize, Vec<f32>)>;

/// `chunks.len()` vectors of `DIM` floats end to end, each with its chunk;
/// an error that says so where the lengths disagree.
fn paired(chunks: &[u32], vectors: &[f32]) -> Result<Vectors, JsError> {
    if vectors.len() != chunks.len() * DIM {
        return Err(JsError::new(&format!("{} floats for {} chunks of {DIM}", vectors.len(), chunks.len())));
    }
    Ok(chunks.iter().zip(vectors.chunks_exact(DIM)).map(|(&c, v)| (c as usize, v.to_vec())).collect())
}

/// A question's candidates with MiniLM's vectors (see `Workspace.search`),
/// where both were given.
fn with_vectors(chunks: Option<Vec<u32>>, vectors: Option<Vec<f32>>) -> Result<Option<Vectors>, JsError> {
    match (chunks, vectors) {
        (Some(chunks), Some(vectors)) => paired(&chunks, &vectors).map(Some),
        _ => Ok(None),
    }
}

/// A partial `SearchOptions` from JavaScript; none gives the defaults.
fn search_options(options: JsValue) -> Result<SearchOptions, JsError> {
    if options.is_undefined() || options.is_null() {
        return Ok(SearchOptions::default());
    }
    serde_wasm_bindgen::from_value(options).map_err(|e| JsError::new(&format!("bad search options: {e}")))
}

/// A split item as the page holds it (`SplitNeed`).
#[derive(Serialize, serde::Deserialize)]
struct NeedJs {
    path: String,
    hash: String,
    bytes: u32,
    plain: u32,
    what: String,
    /// A packed item's bytes in the file at `path`: `offset..offset + length`.
    #[serde(default)]
    offset: Option<u64>,
    #[serde(default)]
    length: Option<u32>,
    /// The packed items of a step with one run are read with one Range
    /// request: their slots follow one another.
    #[serde(default)]
    run: Option<u32>,
}

impl NeedJs {
    /// An item as the page names it, and its reference.
    fn read(need: JsValue) -> Result<(NeedJs, ItemRef), JsError> {
        let need: NeedJs = serde_wasm_bindgen::from_value(need).map_err(|e| JsError::new(&format!("bad item: {e}")))?;
        let item = ItemRef::from_hex(&need.hash, need.bytes, need.plain)
            .ok_or_else(|| JsError::new(&format!("bad item hash `{}`", need.hash)))?;
        Ok((need, item))
    }

    fn of(need: Need) -> NeedJs {
        let (item, path) = (need.item, need.path());
        let (offset, length) = need.span.map(|s| (s.offset, s.length)).unzip();
        let run = need.run;
        NeedJs { path, hash: item.hex(), bytes: item.bytes, plain: item.plain, what: need.what, offset, length, run }
    }
}

/// A query's `$parameters`, from JS (none where not given).
fn query_params(params: JsValue) -> Result<std::collections::BTreeMap<String, serde_json::Value>, JsError> {
    if params.is_undefined() || params.is_null() {
        return Ok(Default::default());
    }
    serde_wasm_bindgen::from_value(params).map_err(|e| JsError::new(&format!("bad query parameters: {e}")))
}

/// A step as the page reads it: `{needs}` or `{ready}`.
/// A step whose answer may be refused (an unknown or ambiguous symbol, a
/// depth out of range): refused as the whole index's question is.
fn answer_js<T: Serialize, E: std::error::Error>(step: Step<Result<T, E>>) -> Result<JsValue, JsError> {
    match step {
        Step::Ready(Err(error)) => Err(JsError::new(&error.to_string())),
        Step::Ready(Ok(value)) => step_js(Step::Ready(value)),
        Step::Needs(needs) => step_js(Step::<T>::Needs(needs)),
    }
}

fn step_js<T: Serialize>(step: Step<T>) -> Result<JsValue, JsError> {
    #[derive(Serialize)]
    #[serde(rename_all = "lowercase")]
    enum StepJs<T> {
        Needs(Vec<NeedJs>),
        Ready(T),
    }
    let step = match step {
        Step::Needs(needs) => StepJs::Needs(needs.into_iter().map(NeedJs::of).collect()),
        Step::Ready(value) => StepJs::Ready(value),
    };
    to_js(&step)
}

fn no_index() -> JsError {
    JsError::new("no repository is indexed yet")
}

#[derive(Serialize)]
struct StaticInfo {
    model: String,
    dim: usize,
    vocabulary: usize,
}

#[derive(Serialize)]
struct PendingChunk {
    chunk: usize,
    hash: String,
}

/// Plain objects and `null`s, never `Map`s or `undefined`.
fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    value.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(|e| JsError::new(&e.to_string()))
}

/// A parse worker's work: one share of a staged repository (the bytes of
/// `stagedShare`), parsed into the facts `acceptParsed` takes. It needs no
/// workspace, so each worker's wasm instance holds only its parsers.
#[wasm_bindgen(js_name = parseShare)]
#[cfg_attr(not(feature = "grammars"), allow(unreachable_code, unused_variables))]
pub fn parse_share(share: &[u8]) -> Result<Vec<u8>, JsError> {
    viewer_refuses!("parse_share");
    pipeline::parse_share_bytes(share).map_err(|e| JsError::new(&e))
}

/// What indexing an archive would take, before any file is read: what it
/// holds by top-level folder and the heap indexing needs, for the page's
/// memory budget.
#[wasm_bindgen(js_name = planZip, unchecked_return_type = "Plan")]
#[cfg_attr(not(feature = "grammars"), allow(unreachable_code, unused_variables))]
pub fn plan_zip(name: &str, bytes: &[u8]) -> Result<JsValue, JsError> {
    viewer_refuses!("plan_zip");
    to_js(&pipeline::plan_zip(name, bytes, &Options::default())?)
}

/// This tab's memory budget (`heapBudget`, bytes) as parsing measures it:
/// the page's plan has chosen what to read already, so reading keeps all of
/// it, and parsing stops admitting files once this worker's heap nears the
/// budget (`pipeline`, [`fathom_engine::heap`]).
fn measured_budget(bytes: f64) -> fathom_engine::Budget {
    let heap = bytes as u64;
    fathom_engine::Budget {
        weight: u64::MAX,
        per_file: 0,
        why: format!("{} (this tab's memory budget)", fathom_engine::human_bytes(heap)),
        heap,
    }
}

fn options_excluding(patterns: &[String]) -> Result<Options, JsError> {
    let exclude = fathom_engine::Exclude::new(patterns).map_err(|e| JsError::new(&e.to_string()))?;
    Ok(Options { exclude, ..Options::default() })
}

/// This instance's memory: its linear memory (which only grows, so also its
/// peak), and the bytes the allocator holds live now and held at most.
#[wasm_bindgen(js_name = heapStats, unchecked_return_type = "HeapStats")]
pub fn heap_stats() -> Result<JsValue, JsError> {
    #[cfg(target_arch = "wasm32")]
    let linear_bytes = core::arch::wasm32::memory_size(0) * 65536;
    #[cfg(not(target_arch = "wasm32"))]
    let linear_bytes = 0;
    let (live_bytes, peak_live_bytes) = fathom_engine::heap::counts().unwrap_or_default();
    let (live_bytes, peak_live_bytes) = (live_bytes as usize, peak_live_bytes as usize);
    to_js(&HeapStats { linear_bytes, live_bytes, peak_live_bytes })
}

#[derive(Serialize)]
struct HeapStats {
    linear_bytes: usize,
    live_bytes: usize,
    peak_live_bytes: usize,
}

/// What `stageZip` read: source files to parse and their bytes.
#[derive(Serialize)]
struct StagedInfo {
    files: usize,
    bytes: usize,
}

fn no_staged() -> JsError {
    JsError::new("no repository is staged: call stageZip or stageFiles first")
}

fn no_sample() -> JsError {
    JsError::new("no archive is sampled: call sampleZip first")
}

/// Lists of file positions, as the page's typed arrays.
fn position_lists(lists: Vec<Vec<u32>>) -> JsValue {
    let out = js_sys::Array::new();
    for list in lists {
        out.push(&js_sys::Uint32Array::from(list.as_slice()));
    }
    out.into()
}

/// A dropped folder's files: file `i` is `paths[i]`, its bytes
/// `data[ends[i-1]..ends[i]]`.
fn split_files(paths: Vec<String>, data: &[u8], ends: Vec<u32>) -> Result<Vec<(String, Vec<u8>)>, JsError> {
    if paths.len() != ends.len()
        || ends.windows(2).any(|w| w[0] > w[1])
        || ends.last().is_some_and(|&e| e as usize > data.len())
    {
        return Err(JsError::new("stageFiles: paths, ends and data do not agree"));
    }
    let mut start = 0usize;
    Ok(paths
        .into_iter()
        .zip(ends)
        .map(|(path, end)| {
            let bytes = data[start..end as usize].to_vec();
            start = end as usize;
            (path, bytes)
        })
        .collect())
}

struct JsObserver {
    on_progress: Function,
}

#[derive(Serialize)]
struct ProgressEvent {
    stage: Stage,
    done: usize,
    total: usize,
}

impl Observer for JsObserver {
    fn now_ms(&self) -> f64 {
        let performance: Option<web_sys::Performance> =
            js_sys::Reflect::get(&js_sys::global(), &"performance".into()).ok().and_then(|p| p.dyn_into().ok());
        performance.map_or_else(js_sys::Date::now, |p| p.now())
    }

    fn progress(&mut self, stage: Stage, done: usize, total: usize) {
        if let Ok(event) = to_js(&ProgressEvent { stage, done, total }) {
            // A throwing callback must not abort indexing; the page hears of it in the console.
            let _ = self.on_progress.call1(&JsValue::NULL, &event);
        }
    }
}
