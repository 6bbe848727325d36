// The result types are declared once, by the wasm crate, in the generated
// bindings; this module re-exports them and adds the messages exchanged
// between FathomClient (main thread) and the indexing worker.

import type {
  Direction,
  Hop,
  IndexSummary,
  Progress,
  QueryResult,
  Reached,
  SearchHit,
  Stage,
  SymbolContext,
} from '../../pkg/fathom_wasm.js';

export type {
  Direction,
  FileError,
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
  SkipReason,
  Skipped,
  Stage,
  SymbolKind,
  Timings,
} from '../../pkg/fathom_wasm.js';

export const STAGES: readonly Stage[] = ['read', 'parse', 'graph', 'resolve', 'index'];

// ---- Worker protocol -------------------------------------------------------

export type WorkerRequest =
  | { id: number; op: 'indexZip'; name: string; bytes: ArrayBuffer }
  | { id: number; op: 'search'; query: string; limit: number }
  | { id: number; op: 'file'; path: string }
  | { id: number; op: 'callers'; symbol: string; depth: number }
  | { id: number; op: 'callees'; symbol: string; depth: number }
  | { id: number; op: 'impact'; symbol: string; depth: number }
  | { id: number; op: 'path'; from: string; to: string; depth: number }
  | { id: number; op: 'neighbors'; symbol: string; types: string[]; direction: Direction }
  | { id: number; op: 'symbol'; symbol: string }
  | { id: number; op: 'query'; text: string; params: Record<string, unknown> };

export type Op = WorkerRequest['op'];

/** The value each operation resolves to. */
export interface OpResults {
  indexZip: IndexSummary;
  search: SearchHit[];
  file: string | undefined;
  callers: Reached[];
  callees: Reached[];
  impact: Reached[];
  path: Hop[] | null;
  neighbors: Hop[];
  symbol: SymbolContext;
  query: QueryResult;
}

export type ResultReply = {
  [K in Op]: { id: number; type: 'result'; op: K; value: OpResults[K] };
}[Op];

export interface ErrorReply {
  id: number;
  type: 'error';
  message: string;
}

export interface ProgressReply {
  id: number;
  type: 'progress';
  progress: Progress;
}

export type WorkerReply = ResultReply | ErrorReply | ProgressReply;
