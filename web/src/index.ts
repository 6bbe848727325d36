export { FathomClient } from './client';
export { STAGES } from './protocol';
export type {
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
