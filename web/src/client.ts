// Main-thread handle on the indexing worker: typed, promise-based calls
// correlated with worker replies by request id.
import type {
  Backend,
  Calls,
  FileInfo,
  Definition,
  Change,
  FeatureCard,
  GraphMap,
  Highlights,
  Reference,
  GraphSchema,
  Direction,
  EmbeddingProgress,
  Hop,
  IndexSummary,
  KeptOffline,
  LiveResults,
  MemoryReport,
  Plan,
  Op,
  OpResults,
  Progress,
  QueryResult,
  Reached,
  Refinement,
  SearchOptions,
  SplitFetched,
  SplitOpened,
  SymbolContext,
  TestsFor,
  WorkerReply,
  WorkerRequest,
} from './protocol';

/** A request without its id; `op` drives inference of the result type. */
type RequestBody<K extends Op> = Omit<Extract<WorkerRequest, { op: K }>, 'id'> & { op: K };

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  onProgress: ((progress: Progress) => void) | undefined;
  /** A search's listener for MiniLM's refinement, which follows its result. */
  onRefined?: ((refinement: Refinement) => void) | undefined;
}

/**
 * A request whose engine trapped (a Rust panic). The worker was replaced by
 * a fresh one, without an index: every pending request rejects with this.
 */
export class EngineCrashed extends Error {
  constructor(cause: string) {
    super(`the engine stopped on an internal error (${cause}) and was restarted`);
    this.name = 'EngineCrashed';
  }
}

/**
 * A question over a split bundle (a Cypher query, callers, callees or
 * impact) that would fetch more than it was allowed (5 MB unless
 * `allowBytes` says otherwise): about `bytes` more, in `items` items. Ask
 * again with a larger `allowBytes` to fetch them.
 */
export class CostlyQuery extends Error {
  constructor(message: string, readonly bytes: number, readonly items: number) {
    super(message);
    this.name = 'CostlyQuery';
  }
}

export class FathomClient {
  #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  /** Searches whose MiniLM refinement is still to come, by request id. */
  readonly #refining = new Map<number, (refinement: Refinement) => void>();
  #nextId = 1;
  /** Set once the worker is gone (disposed or crashed); every later call rejects with it. */
  #closed: Error | undefined;
  readonly #embeddingListeners = new Set<(progress: EmbeddingProgress) => void>();
  readonly #crashListeners = new Set<(error: EngineCrashed) => void>();
  /** Where the model asset is served: `model/` beside the page. */
  readonly #modelBase: string;
  /** Whether the page asked for parse workers ahead ([`prepareIndexing`]): a fresh worker starts them too. */
  #prepared = false;
  /** The worker runs the viewer: the engine without grammars, which reads split bundles and parses nothing. */
  readonly #viewer: boolean;

  /**
   * `viewer`: the page only reads split bundles (`openSplit`), so the worker
   * loads the viewer, the engine without its grammars (about half its size):
   * it indexes nothing and colours no code.
   */
  constructor(options: { modelBase?: string; viewer?: boolean } = {}) {
    this.#modelBase = options.modelBase ?? new URL('./model/', location.href).href;
    this.#viewer = options.viewer ?? false;
    this.#worker = this.#spawn();
  }

  #spawn(): Worker {
    // Two literal constructions: the bundler finds a worker only so.
    const worker = this.#viewer
      ? new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'fathom-viewer' })
      : new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
    worker.addEventListener('message', (event: MessageEvent<WorkerReply>) => this.#onReply(event.data));
    worker.addEventListener('error', (event) => {
      event.preventDefault();
      this.#close(new Error(`the Fathom worker failed: ${event.message || 'it could not be loaded'}`));
    });
    return worker;
  }

  /**
   * Indexes an archive (.zip, .tar.gz or .tar), replacing the previous index
   * on success. Paths matching `exclude` (globs: `tests/**`, `*.min.js`) are
   * left out and reported as skipped. `scip`: SCIP indexes given beside the
   * archive (one inside it is found by the engine), whose references become
   * precise edges; one that cannot be read is listed as skipped, with its
   * cause. `heapBudget` (bytes): the indexing worker's heap is measured
   * while parsing, and the files past it are left out, listed as skipped
   * (limit), whatever the plan estimated.
   */
  async indexZip(
    file: Blob,
    name: string,
    onProgress?: (progress: Progress) => void,
    exclude: string[] = [],
    scip: { name: string; file: Blob }[] = [],
    heapBudget?: number,
  ): Promise<IndexSummary> {
    const bytes = await file.arrayBuffer();
    const indexes = await Promise.all(scip.map(async (s) => ({ name: s.name, bytes: await s.file.arrayBuffer() })));
    return this.#request(
      { op: 'indexZip', name, bytes, exclude, scip: indexes, heapBudget },
      [bytes, ...indexes.map((s) => s.bytes)],
      onProgress,
    );
  }

  /**
   * What indexing an archive would take, from its listing alone: the files
   * it holds for analysis by top-level folder, and the heap indexing needs.
   */
  async plan(file: Blob, name: string): Promise<Plan> {
    const bytes = await file.arrayBuffer();
    return this.#request({ op: 'plan', name, bytes }, [bytes]);
  }

  /**
   * Starts the parse workers ahead of the first index, where there are cores
   * for them: their threads start and load their scripts while a person
   * picks an archive, not after, and parse the archive's first files while
   * the rest is read (Django, a cold page's first index on 2 cores: 3.32 s
   * rather than 3.48 s, the means of 4 runs of each taken in turn). Their
   * engines start on their first share, so an app that never
   * indexes holds only idle threads. An app made to index calls it as it
   * starts; a viewer of bundles need not. Resolves to how many there are.
   */
  prepareIndexing(): Promise<number> {
    this.#prepared = true;
    return this.#request({ op: 'prepare' });
  }

  /** Indexes a folder's files, each with its path inside the folder. */
  async indexFiles(
    name: string,
    files: { path: string; file: Blob }[],
    onProgress?: (progress: Progress) => void,
  ): Promise<IndexSummary> {
    const buffers = await Promise.all(files.map((f) => f.file.arrayBuffer()));
    const ends = new Uint32Array(files.length);
    let total = 0;
    buffers.forEach((b, i) => {
      total += b.byteLength;
      ends[i] = total;
    });
    const data = new Uint8Array(total);
    buffers.forEach((b, i) => data.set(new Uint8Array(b), (ends[i] ?? 0) - b.byteLength));
    return this.#request(
      { op: 'indexFiles', name, paths: files.map((f) => f.path), data: data.buffer, ends },
      [data.buffer],
      onProgress,
    );
  }

  /**
   * Stops whatever the worker is doing (indexing, embedding) by replacing it
   * with a fresh one; pending calls reject with "cancelled". The index is gone.
   */
  cancel(): void {
    this.#replace(new Error('cancelled'));
  }

  /**
   * Hybrid search over the current index, answered at once, whatever MiniLM
   * is doing: BM25, names, trace locations and the static lane's meaning
   * (the result's `mode` and `params.meaning` say which ran). Where MiniLM
   * reads the question (its `reading.state` is "reading"), `onRefined`
   * hears, once, the results MiniLM re-ranked, or why there are none (a
   * newer question cancelled the reading, or it could not be read in time).
   * A newer search cancels an older one's reading.
   */
  search(query: string, options: Partial<SearchOptions> = {}, onRefined?: (refinement: Refinement) => void): Promise<LiveResults> {
    return this.#request({ op: 'search', query, options }, [], undefined, onRefined);
  }

  /**
   * Gives search meaning for the current index: builds the static lane (a
   * few MB, ready in moments), then, with `minilm` (the default), starts
   * MiniLM in the background. With backend "auto" MiniLM times a short
   * batch of the repository's chunks on each lane the browser has (its CPU
   * workers, and WebGPU where an adapter exists), runs on the faster, and
   * embeds every chunk where that lane does it within `wholeWithinSeconds`
   * (default 120); otherwise it reads only each question's candidates. A
   * backend named ("cpu", "webgpu") embeds every chunk there. MiniLM takes
   * over once every chunk has its vector. `onEmbedding` listeners hear each
   * step. Resolves once the static lane is built, to where meaning stands;
   * searches never wait for MiniLM. Calling it again with a backend named
   * (the reader asking for every chunk) starts that; a lane already built is
   * kept.
   */
  startEmbedding(backend: Backend = 'auto', options: { minilm?: boolean; wholeWithinSeconds?: number | undefined } = {}): Promise<EmbeddingProgress> {
    return this.#request({
      op: 'startEmbedding',
      options: { backend, minilm: options.minilm ?? true, wholeWithinSeconds: options.wholeWithinSeconds },
      modelBase: this.#modelBase,
    });
  }

  /**
   * Calls `listener` each time the engine traps and its worker is replaced:
   * the index is gone; what the page keeps elsewhere (its library) is not.
   */
  onCrash(listener: (error: EngineCrashed) => void): () => void {
    this.#crashListeners.add(listener);
    return () => this.#crashListeners.delete(listener);
  }

  /** Test hook: makes the engine panic, as a bug would. */
  debugPanic(): Promise<void> {
    return this.#call('debugPanic');
  }

  /** Listens to background embedding; returns a function that stops listening. */
  onEmbedding(listener: (progress: EmbeddingProgress) => void): () => void {
    this.#embeddingListeners.add(listener);
    return () => this.#embeddingListeners.delete(listener);
  }

  /**
   * Embeds texts with the model (384 floats each, end to end): for checks and
   * benchmarks. `workers` sets how many MiniLM workers run on the CPU (by
   * default one per core, at most 4).
   */
  embedTexts(texts: string[], backend: Backend = 'auto', workers?: number): Promise<Float32Array> {
    return this.#request({ op: 'embedTexts', texts, backend, modelBase: this.#modelBase, workers });
  }

  /** The engine's memory and how the last index was parsed: for `make bench` and diagnostics. */
  memory(): Promise<MemoryReport> {
    return this.#request({ op: 'memory' });
  }

  /** Source text of an indexed file, or undefined when the path is not indexed. */
  file(path: string): Promise<string | undefined> {
    return this.#request({ op: 'file', path });
  }

  /** Who calls a symbol (a qualified or unique name), up to `depth` hops (1 to 4). */
  callers(symbol: string, depth = 1, options: { allowBytes?: number } = {}): Promise<Reached[]> {
    return this.#request({ op: 'callers', symbol, depth, ...options });
  }

  /** What a symbol calls, up to `depth` hops (1 to 4). */
  callees(symbol: string, depth = 1, options: { allowBytes?: number } = {}): Promise<Reached[]> {
    return this.#request({ op: 'callees', symbol, depth, ...options });
  }

  /** What depends on a symbol or anything it contains, with paths. */
  impact(symbol: string, depth = 2, options: { allowBytes?: number } = {}): Promise<Reached[]> {
    return this.#request({ op: 'impact', symbol, depth, ...options });
  }

  /** The shortest chain of dependency edges between two symbols, or null. */
  path(from: string, to: string, depth = 4): Promise<Hop[] | null> {
    return this.#request({ op: 'path', from, to, depth });
  }

  /** The edges at a symbol, of the given types (all when empty). */
  neighbors(symbol: string, types: string[] = [], direction: Direction = 'both'): Promise<Hop[]> {
    return this.#request({ op: 'neighbors', symbol, types, direction });
  }

  /** A symbol with its signature, docs, members, callers, callees, tests and code. */
  symbol(symbol: string): Promise<SymbolContext> {
    return this.#request({ op: 'symbol', symbol });
  }

  /**
   * Runs a read-only Cypher query; rejects with the cause, line and column
   * when refused. Over a split bundle it fetches what it reads, up to
   * `allowBytes` (5 MB unless given); a query that would fetch more (one
   * that matches nodes by no name reads the whole graph) rejects first with
   * a {@link CostlyQuery} saying how much, for the reader to allow.
   */
  query(text: string, params: Record<string, unknown> = {}, options: { allowBytes?: number } = {}): Promise<QueryResult> {
    return this.#request({ op: 'query', text, params, ...options });
  }

  /** Every indexed file with its language, lines and definitions, in path order. */
  files(): Promise<FileInfo[]> {
    return this.#call('files');
  }

  /** The repository map: positions, levels of detail, colour groups and edges, in columns. */
  graphMap(): Promise<GraphMap> {
    return this.#call('graphMap');
  }

  /** Node labels, properties, edge types and reasons of the graph. */
  graphSchema(): Promise<GraphSchema> {
    return this.#call('graphSchema');
  }

  /**
   * A feature card for a question: best symbols, how they connect, their code,
   * tests, a summary from the graph, and Markdown cut to `budget` tokens.
   */
  featureCard(query: string, budget = 4000): Promise<FeatureCard> {
    return this.#call('featureCard', query, budget);
  }

  /**
   * Tests to run for a change (a unified diff, a description, symbols, or a
   * mix), ranked with their evidence, and the change's impact by package.
   * `abstained` is set, with the reason in `notes`, when the evidence is weak.
   */
  testsFor(change: Change): Promise<TestsFor> {
    return this.#call('testsFor', change);
  }

  /** Syntax highlighting spans of an indexed file. */
  highlight(path: string): Promise<Highlights | undefined> {
    return this.#call('highlight', path);
  }

  /** Where the identifier at a line (1-based) and UTF-16 column (0-based) is defined, best first. */
  definitionAt(path: string, line: number, column: number): Promise<Definition[]> {
    return this.#call('definitionAt', path, line, column);
  }

  /** Every place that refers to a symbol. */
  references(symbol: string): Promise<Reference[]> {
    return this.#call('references', symbol);
  }

  /** The current index as a `.fathom` bundle. */
  exportBundle(): Promise<Uint8Array> {
    return this.#call('exportBundle');
  }

  /**
   * Opens a split bundle (`fathom index --split`) at `base`, a folder's URL
   * ending in `/`: its root only. Searches and files then fetch the items
   * they need from it, each once. A refused root leaves the current index.
   */
  openSplit(base: string): Promise<SplitOpened> {
    return this.#request({ op: 'openSplit', base, modelBase: this.#modelBase });
  }

  /**
   * Opens a split bundle from a folder on this computer (dropped or
   * picked): `files` are its files, each `path` relative to the folder
   * (`root.fathom`, `s/….bin`). Only the root is read now; each question
   * reads the items it needs from the files, as over HTTP. A refused root
   * leaves the current index.
   */
  openSplitFiles(name: string, files: { path: string; file: Blob }[]): Promise<SplitOpened> {
    return this.#request({ op: 'openSplitFiles', name, files, modelBase: this.#modelBase });
  }

  /**
   * Keeps the open split bundle for offline use: fetches every item the
   * browser does not keep yet (checked, not read into the engine), so that
   * every question is answered with the network off. Items a question
   * fetched are kept already; the page and its scripts are the site's to
   * keep (its own service worker). Needs a secure context (https or
   * localhost). `onProgress` counts items.
   */
  keepOffline(onProgress?: (progress: Progress) => void): Promise<KeptOffline> {
    return this.#request({ op: 'keepOffline' }, [], onProgress);
  }

  /** What the open split bundle's reader has fetched so far; null without one. */
  splitFetched(): Promise<SplitFetched | null> {
    return this.#call('splitFetched');
  }

  /** Opens a `.fathom` bundle (checked first); a refused one leaves the current index. */
  importBundle(bytes: Uint8Array): Promise<IndexSummary> {
    return this.#call('importBundle', bytes);
  }

  /** Terminates the worker; pending calls are rejected. */
  dispose(): void {
    this.#close(new Error('FathomClient was disposed'));
  }

  #call<M extends keyof Calls>(method: M, ...args: Calls[M]['args']): Promise<Calls[M]['result']> {
    return this.#request({ op: 'call', method, args }) as Promise<Calls[M]['result']>;
  }

  #request<K extends Op>(
    body: RequestBody<K>,
    transfer: Transferable[] = [],
    onProgress?: (progress: Progress) => void,
    onRefined?: (refinement: Refinement) => void,
  ): Promise<OpResults[K]> {
    if (this.#closed) return Promise.reject(this.#closed);
    const id = this.#nextId++;
    return new Promise<OpResults[K]>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject, onProgress, onRefined });
      this.#worker.postMessage({ ...body, id }, transfer);
    });
  }

  #onReply(reply: WorkerReply): void {
    if (reply.type === 'embedding') {
      for (const listener of this.#embeddingListeners) listener(reply.progress);
      return;
    }
    if (reply.type === 'refined') {
      const listener = this.#refining.get(reply.id);
      this.#refining.delete(reply.id);
      listener?.(reply.refinement);
      return;
    }
    const pending = this.#pending.get(reply.id);
    if (!pending) return;
    switch (reply.type) {
      case 'progress':
        pending.onProgress?.(reply.progress);
        return;
      case 'result':
        this.#pending.delete(reply.id);
        // The worker posts a search's refinement after its result: its listener waits for it.
        if (reply.op === 'search' && reply.value.reading.state === 'reading' && pending.onRefined) this.#refining.set(reply.id, pending.onRefined);
        pending.resolve(reply.value);
        return;
      case 'error':
        if (reply.crashed) return this.#restart(new EngineCrashed(reply.message));
        this.#pending.delete(reply.id);
        pending.reject(reply.asks ? new CostlyQuery(reply.message, reply.asks.bytes, reply.asks.items) : new Error(reply.message));
        return;
    }
  }

  /** Replaces a worker whose engine trapped, and says so. */
  #restart(error: EngineCrashed): void {
    this.#replace(error);
    for (const listener of this.#crashListeners) listener(error);
  }

  /** Ends the worker, rejecting what it still owed with `reason`, and starts a fresh one. */
  #replace(reason: Error): void {
    this.#worker.terminate();
    for (const pending of this.#pending.values()) pending.reject(reason);
    this.#pending.clear();
    this.#dropRefining(reason);
    this.#worker = this.#spawn();
    if (this.#prepared) this.prepareIndexing().catch(() => undefined);
  }

  #close(reason: Error): void {
    if (this.#closed) return;
    this.#closed = reason;
    this.#worker.terminate();
    for (const pending of this.#pending.values()) pending.reject(reason);
    this.#pending.clear();
    this.#dropRefining(reason);
  }

  /** The worker is gone: no refinement will come. */
  #dropRefining(reason: Error): void {
    for (const listener of this.#refining.values()) listener({ results: null, reading: { state: 'failed', detail: reason.message } });
    this.#refining.clear();
  }
}
