// The result types are declared once, by the wasm crate, in the generated
// bindings; this module re-exports them and adds the messages exchanged
// between FathomClient (main thread) and the indexing worker.

import type {
  Change,
  Definition,
  Direction,
  FeatureCard,
  Highlights,
  Reference,
  FileInfo,
  GraphMap,
  GraphSchema,
  Hop,
  IndexSummary,
  Meaning,
  Plan,
  Progress,
  QueryResult,
  Reached,
  SearchOptions,
  SearchResults,
  SplitFetched,
  Stage,
  SymbolContext,
  TestsFor,
} from '../../pkg/fathom_wasm.js';

export type {
  SplitFetched,
  SplitNeed,
  SplitStep,
  FolderSize,
  KindAgreement,
  Plan,
  ScipReport,
  ScipSource,
  Survey,
  Change,
  RecommendedTest,
  TestsFor,
  Definition,
  Direction,
  FeatureCard,
  HeapStats,
  Highlights,
  Reference,
  FileError,
  FileInfo,
  GraphMap,
  GraphSchema,
  Hop,
  NodeRef,
  Reached,
  SymbolContext,
  IndexSummary,
  MatchKind,
  Progress,
  QueryResult,
  ResolutionStats,
  SearchHit,
  SearchMode,
  SearchOptions,
  SearchFilter,
  SearchParams,
  SearchResults,
  Explain,
  FileHit,
  Citation,
  Weights,
  Meaning,
  StaticInfo,
  EmbeddingStatus,
  SkipReason,
  Skipped,
  Stage,
  SymbolKind,
  Timings,
} from '../../pkg/fathom_wasm.js';
export type { ModelInfo } from '../../pkg/fathom_wasm_minilm.js';

/** The indexing stages, in order; `embed` runs afterwards, in the background. */
export const STAGES = ['read', 'parse', 'graph', 'resolve', 'index'] as const satisfies readonly Stage[];

/** Where the embedding model runs: "auto" tries WebGPU and falls back to the CPU. */
export type Backend = 'auto' | 'webgpu' | 'cpu';

/**
 * Meaning in search, as the worker reports it: the static lane (a table
 * lookup, ready moments after indexing) serves first; MiniLM embeds in the
 * background where WebGPU exists, or on the CPU when asked, and takes over
 * once its index is built.
 */
export interface EmbeddingProgress {
  /**
   * MiniLM's progress. `waiting`: not started, for the reason in `waiting`
   * (not asked for, or every chunk would take longer than is worth it, so
   * MiniLM reads each question's candidates alone); `startEmbedding` with
   * a backend named starts it. `measuring`: a short batch is being timed on
   * each lane this browser has, to run on the faster.
   */
  state: 'waiting' | 'loading' | 'measuring' | 'embedding' | 'building' | 'ready' | 'failed';
  /** The dense lane searches read meaning from now; null: lexical only. */
  serving: Meaning | null;
  /** Why MiniLM is not running, in state `waiting`. */
  waiting: string | null;
  /** Why the static lane is missing, if it is. */
  staticError: string | null;
  /** Milliseconds to fetch and load the static table (0 once loaded), then to build the lane over every chunk. */
  staticMs: { load: number; build: number } | null;
  /** Where the static lane's vectors came from: the bundle, which carried them, or the chunks' texts, embedded here. */
  staticFrom: 'bundle' | 'texts' | null;
  /** The backend in use once the model is loaded, e.g. "webgpu (burn wgpu)". */
  backend: string | null;
  /** Why WebGPU was not used, when "auto" fell back to the CPU. */
  fallback: string | null;
  /** MiniLM's workers once loaded: one on WebGPU, one per core (at most 4) on the CPU. */
  workers: number | null;
  chunks: number;
  /** Chunks with a MiniLM vector, from the cache or the model. */
  done: number;
  /** Of `done`, how many came from the cache. */
  cached: number;
  /** Estimated seconds left, once a batch has been timed. */
  etaSeconds: number | null;
  /** Each lane's speed as timed on this repository's chunks, fastest first (empty until timed). */
  measured: Measured[];
  /** About how long MiniLM would take over every chunk not yet embedded, on the lane it runs on; null until timed. */
  wholeSeconds: number | null;
  /** Why MiniLM failed, in state `failed`. */
  error: string | null;
}

/**
 * How meaning is read. `minilm`: also run MiniLM (on WebGPU; on the CPU only
 * where `backend` is "cpu", or where every chunk already has its vector, as in
 * a bundle that carries them, so only queries need the model); false: the
 * static lane alone, and MiniLM's weights are never fetched.
 */
export interface MeaningOptions {
  backend: Backend;
  minilm: boolean;
  /**
   * With backend "auto": MiniLM embeds every chunk where the faster lane
   * would do it within this many seconds (by default 120), and otherwise
   * reads only each question's candidates. A backend named embeds every
   * chunk, whatever it takes.
   */
  wholeWithinSeconds?: number | undefined;
}

/** A lane's speed, timed on a short batch of the repository's own chunks. */
export interface Measured {
  /** As MiniLM names it: "webgpu (burn wgpu)", "cpu (burn flex)". */
  backend: string;
  workers: number;
  /** Chunks a second, every worker together; 0 where the lane did not finish its batch in time. */
  chunksPerSecond: number;
}

/**
 * Where MiniLM's reading of one question stands. `none`: MiniLM adds
 * nothing to it (a search by words, MiniLM not loaded); `reading`: a
 * refinement follows; `done`: it came; `cancelled`: a newer question took
 * its place; `late`: it could not be read in time, and words and the static
 * lane answered alone; `failed`: MiniLM failed. `detail` says why, in words.
 */
export interface Reading {
  state: 'none' | 'reading' | 'done' | 'cancelled' | 'late' | 'failed';
  detail: string | null;
}

/**
 * A search's first answer, given at once: words, names and the static lane,
 * or MiniLM's lane where it serves without waiting. `reading` says whether
 * MiniLM's refinement follows.
 */
export type LiveResults = SearchResults & { reading: Reading };

/** MiniLM's refinement of a search: the results it re-ranked, or null and why not. */
export interface Refinement {
  results: SearchResults | null;
  reading: Reading;
}

// ---- Worker protocol -------------------------------------------------------

/**
 * Workspace methods the worker answers by name (`op: 'call'`), with their
 * arguments and results (awaited when the method returns a promise): adding
 * an engine query needs one line here and one typed method on the client,
 * not a new message.
 */
export interface Calls {
  files: { args: []; result: FileInfo[] };
  graphMap: { args: []; result: GraphMap };
  graphSchema: { args: []; result: GraphSchema };
  highlight: { args: [path: string]; result: Highlights | undefined };
  definitionAt: { args: [path: string, line: number, column: number]; result: Definition[] };
  references: { args: [symbol: string]; result: Reference[] };
  exportBundle: { args: []; result: Uint8Array };
  importBundle: { args: [bytes: Uint8Array]; result: IndexSummary };
  /** Panics inside the engine: the test hook for recovering from a trap. */
  debugPanic: { args: []; result: void };
  featureCard: { args: [query: string, budget: number]; result: FeatureCard };
  testsFor: { args: [change: Change]; result: TestsFor };
  /** What the open split bundle's reader has fetched; null without one. */
  splitFetched: { args: []; result: SplitFetched | null };
}
export type CallMethod = keyof Calls;
export const CALL_METHODS = [
  'files', 'graphMap', 'graphSchema', 'featureCard', 'testsFor', 'highlight', 'definitionAt', 'references', 'exportBundle', 'importBundle',
  'debugPanic', 'splitFetched',
] as const satisfies readonly CallMethod[];

/** The engine's memory, and how the last index was parsed. */
export interface MemoryReport {
  /** The indexing worker's wasm linear memory, in bytes: its peak, as wasm memory never shrinks. */
  heapBytes: number;
  /** Bytes the indexing worker's allocator holds now: the index itself, once indexing is done. */
  liveBytes: number;
  /** The most its allocator held at once, since the worker started. */
  peakLiveBytes: number;
  parse: {
    /** Parse workers used (0: parsed in the indexing worker, a small repository). */
    workers: number;
    shares: number;
    /** Shares whose worker failed, parsed in the indexing worker instead. */
    failedShares: number;
    /** Files of the archive's first bytes, parsed while the rest was read. */
    sampledFiles: number;
    /** Each parse worker's peak linear memory, in bytes. */
    parseHeapBytes: number[];
    /**
     * Each parse worker's milliseconds spent parsing for the last index:
     * with the stages' times, where the time went (work on every core, or
     * on the indexing worker's one).
     */
    parseBusyMs: number[];
  };
  /** Each MiniLM worker's peak linear memory, in bytes (none until MiniLM runs). */
  minilmHeapBytes: number[];
}

/**
 * A split bundle opened: what its root says the index holds, and whether it
 * carries the static lane, which a search not by words alone then reads
 * (the tokenizer from the client's model folder, the rest from the bundle).
 */
export type SplitOpened = IndexSummary & { meaning: boolean };

export type WorkerRequest =
  | { id: number; op: 'indexZip'; name: string; bytes: ArrayBuffer; exclude: string[]; scip: { name: string; bytes: ArrayBuffer }[]; heapBudget?: number | undefined }
  | { id: number; op: 'plan'; name: string; bytes: ArrayBuffer }
  | { id: number; op: 'prepare' }
  | { id: number; op: 'indexFiles'; name: string; paths: string[]; data: ArrayBuffer; ends: Uint32Array }
  | { id: number; op: 'search'; query: string; options: Partial<SearchOptions> }
  | { id: number; op: 'openSplit'; base: string; modelBase: string }
  | { id: number; op: 'keepOffline' }
  | { id: number; op: 'openSplitFiles'; name: string; files: { path: string; file: Blob }[]; modelBase: string }
  | { id: number; op: 'startEmbedding'; options: MeaningOptions; modelBase: string }
  | { id: number; op: 'embedTexts'; texts: string[]; backend: Backend; modelBase: string; workers?: number | undefined }
  | { id: number; op: 'memory' }
  | { id: number; op: 'file'; path: string }
  | { id: number; op: 'callers'; symbol: string; depth: number; allowBytes?: number }
  | { id: number; op: 'callees'; symbol: string; depth: number; allowBytes?: number }
  | { id: number; op: 'impact'; symbol: string; depth: number; allowBytes?: number }
  | { id: number; op: 'path'; from: string; to: string; depth: number }
  | { id: number; op: 'neighbors'; symbol: string; types: string[]; direction: Direction }
  | { id: number; op: 'symbol'; symbol: string }
  | { id: number; op: 'query'; text: string; params: Record<string, unknown>; allowBytes?: number }
  | { id: number; op: 'call'; method: CallMethod; args: unknown[] };

export type Op = WorkerRequest['op'];

/** The value each operation resolves to. */
export interface OpResults {
  indexZip: IndexSummary;
  plan: Plan;
  /** The parse workers started: 0 where indexing runs on the engine's own thread. */
  prepare: number;
  indexFiles: IndexSummary;
  search: LiveResults;
  openSplit: SplitOpened;
  keepOffline: KeptOffline;
  openSplitFiles: SplitOpened;
  /** Where meaning stands once the static lane is built and MiniLM started, or not. */
  startEmbedding: EmbeddingProgress;
  embedTexts: Float32Array;
  memory: MemoryReport;
  file: string | undefined;
  callers: Reached[];
  callees: Reached[];
  impact: Reached[];
  path: Hop[] | null;
  neighbors: Hop[];
  symbol: SymbolContext;
  query: QueryResult;
  call: unknown;
}

export type ResultReply = {
  [K in Op]: { id: number; type: 'result'; op: K; value: OpResults[K] };
}[Op];

export interface ErrorReply {
  id: number;
  type: 'error';
  message: string;
  /** The engine trapped (a Rust panic): its instance is unusable, and the worker is replaced. */
  crashed?: boolean;
  /** A query over a split bundle stopped before fetching more than it was allowed: about this much more. */
  asks?: { bytes: number; items: number };
}

/** A split bundle kept for offline use: every item the browser now keeps, and those this call fetched. */
export interface KeptOffline {
  items: number;
  bytes: number;
  fetched: number;
  fetchedBytes: number;
}

export interface ProgressReply {
  id: number;
  type: 'progress';
  progress: Progress;
}

/** Unsolicited: background embedding moved on (id 0). */
export interface EmbeddingReply {
  id: 0;
  type: 'embedding';
  progress: EmbeddingProgress;
}

/** A search's refinement by MiniLM, after its result (same id): once, with the results or why not. */
export interface RefinedReply {
  id: number;
  type: 'refined';
  refinement: Refinement;
}

export type WorkerReply = ResultReply | ErrorReply | ProgressReply | EmbeddingReply | RefinedReply;
