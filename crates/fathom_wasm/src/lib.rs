//! The browser's view of Fathom: one [`Workspace`] per worker, each method a
//! thin call into `fathom_engine` whose result crosses to JavaScript as a
//! plain serde value. If a method here grows past a screen, its logic
//! belongs in a core crate.

use fathom_engine::{Index, Observer, Options, Stage};
use js_sys::Function;
use serde::Serialize;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
export type Stage = "read" | "parse" | "graph" | "resolve" | "index";
export interface Progress { stage: Stage; done: number; total: number; }

export type SkipReason =
  | "vendored" | "generated" | "binary" | "too_large" | "unsupported"
  | "encrypted" | "unreadable" | "limit";
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
  score: number;
  match: MatchKind;
}

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
  callers: Hop[]; callees: Hop[]; tests: Reached[]; code: string | null;
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

/// The session state of one browser worker: the current index, if any.
#[wasm_bindgen]
pub struct Workspace {
    index: Option<Index>,
}

#[wasm_bindgen]
impl Workspace {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Workspace {
        console_error_panic_hook::set_once();
        Workspace { index: None }
    }

    /// Indexes a `.zip` archive. `on_progress` is called synchronously with
    /// a `Progress` as the stages advance. The previous index is replaced
    /// only if this one succeeds.
    #[wasm_bindgen(js_name = indexZip, unchecked_return_type = "IndexSummary")]
    pub fn index_zip(
        &mut self,
        name: &str,
        bytes: &[u8],
        #[wasm_bindgen(unchecked_param_type = "(progress: Progress) => void")] on_progress: Function,
    ) -> Result<JsValue, JsError> {
        let mut observer = JsObserver { on_progress };
        let index = fathom_engine::index_zip(name, bytes, &Options::default(), &mut observer)?;
        let summary = to_js(index.summary())?;
        self.index = Some(index);
        Ok(summary)
    }

    /// Symbols by name, best first: exact, then prefix, then substring.
    #[wasm_bindgen(unchecked_return_type = "SearchHit[]")]
    pub fn search(&self, query: &str, limit: usize) -> Result<JsValue, JsError> {
        to_js(&self.index()?.search(query, limit))
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
        let params: std::collections::BTreeMap<String, serde_json::Value> = if params.is_undefined() || params.is_null()
        {
            Default::default()
        } else {
            serde_wasm_bindgen::from_value(params).map_err(|e| JsError::new(&format!("bad query parameters: {e}")))?
        };
        to_js(&self.index()?.query(text, &params)?)
    }

    /// Who calls `symbol`, up to `depth` hops (1 to 4).
    #[wasm_bindgen(unchecked_return_type = "Reached[]")]
    pub fn callers(&self, symbol: &str, depth: u32) -> Result<JsValue, JsError> {
        to_js(&self.index()?.callers(symbol, depth)?)
    }

    /// What `symbol` calls, up to `depth` hops (1 to 4).
    #[wasm_bindgen(unchecked_return_type = "Reached[]")]
    pub fn callees(&self, symbol: &str, depth: u32) -> Result<JsValue, JsError> {
        to_js(&self.index()?.callees(symbol, depth)?)
    }

    /// What depends on `symbol` or anything it contains, up to `depth` hops.
    #[wasm_bindgen(unchecked_return_type = "Reached[]")]
    pub fn impact(&self, symbol: &str, depth: u32) -> Result<JsValue, JsError> {
        to_js(&self.index()?.impact(symbol, depth)?)
    }

    /// The shortest chain of dependency edges between two symbols, or `null`.
    #[wasm_bindgen(unchecked_return_type = "Hop[] | null")]
    pub fn path(&self, from: &str, to: &str, depth: u32) -> Result<JsValue, JsError> {
        to_js(&self.index()?.path(from, to, depth)?)
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
        to_js(&self.index()?.neighbors(symbol, &kinds, direction)?)
    }

    /// A symbol with its signature, docs, members, callers, callees, tests and code.
    #[wasm_bindgen(unchecked_return_type = "SymbolContext")]
    pub fn symbol(&self, symbol: &str) -> Result<JsValue, JsError> {
        to_js(&self.index()?.symbol(symbol)?)
    }

    /// The text of an indexed file, or `undefined` if no such file was indexed.
    pub fn file(&self, path: &str) -> Result<Option<String>, JsError> {
        Ok(self.index()?.file_text(path).map(str::to_owned))
    }
}

impl Default for Workspace {
    fn default() -> Self {
        Workspace::new()
    }
}

impl Workspace {
    fn index(&self) -> Result<&Index, JsError> {
        self.index.as_ref().ok_or_else(|| JsError::new("no repository is indexed yet"))
    }
}

/// Plain objects and `null`s, never `Map`s or `undefined`.
fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    value.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(|e| JsError::new(&e.to_string()))
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
