export { FathomClient } from './client';
export { STAGES } from './protocol';
export type {
  Direction,
  Hop,
  NodeRef,
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
