export { FathomClient } from './client';
export { STAGES } from './protocol';
export type {
  Direction,
  Hop,
  NodeRef,
  QueryResult,
  Reached,
  SymbolContext,
  FileError,
  IndexSummary,
  MatchKind,
  Progress,
  SearchHit,
  SkipReason,
  Skipped,
  Stage,
  SymbolKind,
  Timings,
} from './protocol';
