// Module worker hosting the wasm engine. Requests are served one at a time, in
// order; a failing request turns into an error reply and the worker keeps going.
import init, { Workspace, heapStats, planZip } from '../../pkg/fathom_wasm.js';
import type { StagedInfo } from '../../pkg/fathom_wasm.js';
import wasmUrl from '../../pkg/fathom_wasm_bg.wasm?url';
import minilmUrl from '../../pkg/fathom_wasm_minilm_bg.wasm?url';
import { EmbeddingCache } from './embedding-cache';
import { MiniLmPool, cpuWorkers } from './minilm-pool';
import { POOL_MIN_BYTES, ParsePool, poolSize } from './parse-pool';
import { CALL_METHODS } from './protocol';
import type {
  Backend,
  Change,
  HeapStats,
  IndexSummary,
  MemoryReport,
  EmbeddingProgress,
  FeatureCard,
  MeaningOptions,
  Progress,
  SearchOptions,
  SearchResults,
  StaticInfo,
  Stage,
  WorkerReply,
  WorkerRequest,
} from './protocol';

/** Minimum gap between two progress messages of the same stage. */
const PROGRESS_INTERVAL_MS = 30;

interface WorkerScope {
  postMessage(message: WorkerReply): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<WorkerRequest>) => void): void;
}
const scope = self as unknown as WorkerScope;

let workspace: Promise<Workspace> | undefined;
/** The engine, compiled once: this worker and every parse worker instantiate it. */
let wasmModule: Promise<WebAssembly.Module> | undefined;

function compile(url: string): Promise<WebAssembly.Module> {
  return WebAssembly.compileStreaming(fetch(url)).catch(async () => {
    // A server that does not say application/wasm: compile from the bytes.
    const response = await fetch(url);
    if (!response.ok) throw new Error(`HTTP ${response.status} for ${url}`);
    return WebAssembly.compile(await response.arrayBuffer());
  });
}

function compileEngine(): Promise<WebAssembly.Module> {
  wasmModule ??= compile(wasmUrl);
  return wasmModule;
}

function getWorkspace(): Promise<Workspace> {
  workspace ??= compileEngine().then((module) => init({ module_or_path: module })).then(
    () => new Workspace(),
    (error: unknown) => {
      throw new Error(`failed to load the Fathom engine: ${errorMessage(error)}`);
    },
  );
  return workspace;
}

/** Forwards progress at most once per interval per stage, but always the final done === total. */
function throttledProgress(send: (progress: Progress) => void): (progress: Progress) => void {
  const lastSent = new Map<Stage, number>();
  return ({ stage, done, total }) => {
    const now = performance.now();
    const last = lastSent.get(stage);
    if (done >= total || last === undefined || now - last >= PROGRESS_INTERVAL_MS) {
      lastSent.set(stage, now);
      send({ stage, done, total });
    }
  };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// ---- Parsing on every core ---------------------------------------------------
// A repository is read here, then its files are parsed by a pool of parse
// workers, one share each at a time, and the index is built here from their
// facts. Small repositories are parsed here: starting workers costs more.

let pool: ParsePool | undefined;
/** What `memory` says of an index parsed with no parse workers. */
const parsedHere = (): MemoryReport['parse'] => ({
  workers: 0, shares: 0, failedShares: 0, sampledFiles: 0, parseHeapBytes: [], parseBusyMs: [],
});
/** How the last index was parsed, and the memory it took, for `make bench` and the curious. */
let lastParse = parsedHere();

/** The parse workers, started now if they are not yet; none on one core. */
async function startPool(): Promise<ParsePool | undefined> {
  const size = poolSize();
  if (size < 2) return undefined;
  pool ??= new ParsePool(await compileEngine(), size);
  return pool;
}

/** The parse workers for this many bytes; none for fewer than are worth them. */
async function poolFor(bytes: number): Promise<ParsePool | undefined> {
  return bytes < POOL_MIN_BYTES ? undefined : startPool();
}

/**
 * An archive's first files, this much per parse worker, are read ahead and
 * parsed while the whole archive is read: the workers start, compile their
 * languages' queries and warm up meanwhile, instead of after.
 */
const SAMPLE_BYTES_PER_WORKER = 192 << 10;

/** How many shares each parse worker's part of a repository is cut into. */
const SHARES_PER_WORKER = 16;

/** A parse worker's answer for sampled files. */
interface SampleAnswer {
  positions: Uint32Array;
  parsed: Uint8Array;
}

/**
 * Hands an archive's first files to the parse workers, when the archive is
 * worth a pool; returns a wait for their answers. The workers parse while
 * this worker reads the archive (`stageZip`, which holds its thread).
 */
async function parseSample(ws: Workspace, bytes: Uint8Array, exclude: string[]): Promise<() => Promise<SampleAnswer[]>> {
  const workers = await poolFor(bytes.byteLength);
  if (!workers) return async () => [];
  if (ws.sampleZip(bytes, exclude, SAMPLE_BYTES_PER_WORKER * workers.size) === 0) return async () => [];
  const answers: SampleAnswer[] = [];
  // `run` hands each worker its share before returning: they start now.
  const running = workers.run(ws.sampleShares(workers.size), (share) => ws.sampleShare(share), (positions, result) => {
    if ('parsed' in result) answers.push({ positions, parsed: result.parsed });
  });
  return async () => {
    await running;
    return answers;
  };
}

async function indexStaged(
  ws: Workspace,
  staged: StagedInfo,
  onProgress: (progress: Progress) => void,
  sample: SampleAnswer[] = [],
): Promise<IndexSummary> {
  lastParse = parsedHere();
  let sampled = 0;
  for (const { positions, parsed } of sample) {
    try {
      sampled += ws.acceptSample(positions, parsed);
    } catch (error) {
      console.warn(`a sampled share was not taken; its files are parsed again: ${errorMessage(error)}`);
    }
  }
  const workers = await poolFor(staged.bytes);
  if (workers) {
    // Many more shares than workers: a worker that finishes early takes
    // another, and each holds only its share's text and facts at once
    // (Django: 16 shares a worker rather than 4 took each parse worker's
    // heap from 59 to 40 MB, in the same time).
    const shares = ws.stagedShares(workers.size * SHARES_PER_WORKER);
    const total = staged.files;
    let done = sampled;
    let failed = 0;
    onProgress({ stage: 'parse', done, total });
    await workers.run(
      shares,
      (share) => ws.stagedShare(share),
      (share, result) => {
        try {
          if ('error' in result) throw new Error(result.error);
          ws.acceptParsed(share, result.parsed);
          done += share.length;
          onProgress({ stage: 'parse', done, total });
        } catch (error) {
          failed += 1;
          console.warn(`a parse worker failed; its ${share.length} files are parsed here: ${errorMessage(error)}`);
        }
      },
    );
    lastParse = {
      workers: workers.size, shares: shares.length, failedShares: failed, sampledFiles: sampled, parseHeapBytes: workers.heapBytes,
      parseBusyMs: workers.busyMs,
    };
  }
  return ws.finishStaged(onProgress) as IndexSummary;
}

// ---- Meaning ---------------------------------------------------------------
// Two lanes read meaning. The static lane (a table of one vector per word
// piece, distilled from MiniLM: a few MB) is built moments after indexing
// and serves at once. MiniLM embeds in the background, where WebGPU exists or
// where asked to on the CPU, and takes over once its index is built. Both are
// fetched from the app's own origin and checked against their pinned hashes
// (in Rust); MiniLM's weights only when MiniLM is about to run, and with them
// MiniLM's own module (burn and its WebGPU stack, most of the engine's code),
// which the engine module does without. Chunks are embedded in small batches,
// so requests (searches above all) are answered between them.

const WEIGHTS_FILE = 'minilm-l6-v2.f16.safetensors';
const TOKENIZER_FILE = 'minilm-l6-v2.tokenizer.json';
const STATIC_FILE = 'minilm-l6-v2.static-v1.safetensors';
/** A batch should take about this long, so a search waits at most that. */
const BATCH_TARGET_MS = 300;
/** The largest batch a worker is given. */
const MAX_BATCH = 32;

let model: Promise<MiniLmPool> | undefined;
let modelBackend: Backend | undefined;
let modelWorkers: number | undefined;
/** Counts model loads: only the latest one's pool is kept. */
let loads = 0;
/** MiniLM once loaded: queries are embedded with it once its index is built. */
let minilm: MiniLmPool | undefined;
let staticTable: Promise<StaticInfo> | undefined;
let tokenizer: Promise<Uint8Array> | undefined;
/** Bumped by every new index: a running embedding loop for an older one stops. */
let session = 0;
/** Where meaning stands for the current index, as last reported. */
let meaning: EmbeddingProgress | undefined;

async function fetchBytes(url: string): Promise<Uint8Array> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`the embedding model is unavailable (HTTP ${response.status} for ${url})`);
  return new Uint8Array(await response.arrayBuffer());
}

/** MiniLM's tokenizer, which both lanes read text with: fetched once. */
function tokenizerBytes(base: string): Promise<Uint8Array> {
  tokenizer ??= fetchBytes(base + TOKENIZER_FILE);
  tokenizer.catch(() => {
    tokenizer = undefined;
  });
  return tokenizer;
}

function loadStatic(ws: Workspace, base: string): Promise<StaticInfo> {
  staticTable ??= (async () => {
    const [table, words] = await Promise.all([fetchBytes(base + STATIC_FILE), tokenizerBytes(base)]);
    return ws.loadStatic(table, words) as StaticInfo;
  })();
  staticTable.catch(() => {
    staticTable = undefined;
  });
  return staticTable;
}

/** MiniLM's module, compiled once, when MiniLM first runs: each MiniLM worker instantiates it. */
let minilmModule: Promise<WebAssembly.Module> | undefined;

function minilmEngine(): Promise<WebAssembly.Module> {
  minilmModule ??= compile(minilmUrl);
  minilmModule.catch(() => {
    minilmModule = undefined;
  });
  return minilmModule;
}

/**
 * MiniLM on `backend`, in its workers: one on WebGPU, `workers` on the CPU
 * (one per core by default). A pool loaded otherwise is stopped.
 */
function loadModel(backend: Backend, base: string, workers = cpuWorkers()): Promise<MiniLmPool> {
  if (model && modelBackend === backend && modelWorkers === workers) return model;
  model?.then((old) => old.terminate()).catch(() => undefined);
  modelBackend = backend;
  modelWorkers = workers;
  minilm = undefined;
  loads += 1;
  const ticket = loads;
  const mine = (async () => {
    const [weights, words, module] = await Promise.all([fetchBytes(base + WEIGHTS_FILE), tokenizerBytes(base), minilmEngine()]);
    const loaded = await MiniLmPool.start(module, weights, words, backend, workers);
    // Another load began meanwhile: this pool is not wanted.
    if (ticket === loads) minilm = loaded;
    else loaded.terminate();
    return loaded;
  })();
  model = mine;
  mine.catch(() => {
    if (model === mine) model = undefined;
  });
  return mine;
}

/** Whether this browser gives a WebGPU adapter, asked without loading the model. */
async function webGpuAdapter(): Promise<boolean> {
  const gpu = (navigator as unknown as { gpu?: { requestAdapter(): Promise<unknown> } }).gpu;
  if (!gpu) return false;
  try {
    return (await gpu.requestAdapter()) !== null;
  } catch {
    return false;
  }
}

/** Reports a change of where meaning stands (unsolicited, id 0), for the current index only. */
function report(mine: number, change: Partial<EmbeddingProgress>): EmbeddingProgress | undefined {
  if (mine !== session || !meaning) return undefined;
  meaning = { ...meaning, ...change };
  scope.postMessage({ id: 0, type: 'embedding', progress: meaning });
  return meaning;
}

/**
 * A query's MiniLM vector, where MiniLM is loaded and its index built; none
 * otherwise (the search reads the static lane, or words alone).
 */
async function queryVector(ws: Workspace, text: string, mode?: string): Promise<Float32Array | undefined> {
  if (!minilm || mode === 'lexical' || !text.trim() || !ws.embeddingStatus().dense_ready) return undefined;
  return minilm.embedQuery(text);
}

/** The cache of MiniLM's vectors for the loaded model, opened once per model (undefined where IndexedDB is unavailable). */
let vectorCache: { model: string; cache: Promise<EmbeddingCache | undefined> } | undefined;

function cacheFor(model: MiniLmPool): Promise<EmbeddingCache | undefined> {
  const key = model.info.weights_sha256;
  if (vectorCache?.model !== key) vectorCache = { model: key, cache: EmbeddingCache.open(key).catch(() => undefined) };
  return vectorCache.cache;
}

/** What MiniLM gives a question where its index is not built: the query's vector, and its candidates' vectors. */
interface Reranking {
  vector: Float32Array;
  chunks: Uint32Array;
  vectors: Float32Array;
}

/**
 * Where MiniLM is loaded but its index is not built, MiniLM re-ranks the
 * question's candidates (the best few dozen chunks of its words, names and
 * static table): their vectors come from the cache by content hash, the same
 * cache whole-repository embedding fills and reads, and the rest from
 * MiniLM, which stores them there. Undefined where MiniLM adds nothing here,
 * or another index replaced this one meanwhile.
 */
async function rerankingFor(ws: Workspace, query: string, options: Partial<SearchOptions>): Promise<Reranking | undefined> {
  const pool = minilm;
  if (!pool || options?.mode === 'lexical' || !query.trim()) return undefined;
  const wanted = ws.candidates(query, options);
  if (wanted.length === 0) return undefined;
  const generation = ws.generation;
  const cache = await cacheFor(pool);
  const found = cache ? await cache.getMany(wanted.map((p) => p.hash)).catch(() => new Map<string, Float32Array>()) : new Map<string, Float32Array>();
  const todo = wanted.filter((p) => !found.has(p.hash));
  const [fresh, vector] = await Promise.all([
    todo.length > 0 ? pool.embed(ws.chunkTexts(Uint32Array.from(todo.map((p) => p.chunk)))) : Promise.resolve(new Float32Array(0)),
    pool.embedQuery(query),
  ]);
  if (ws.generation !== generation) return undefined;
  const dim = pool.info.dim;
  if (cache && todo.length > 0) void cache.putMany(todo.map((p) => p.hash), fresh, dim).catch(() => undefined);
  const vectors = new Float32Array(wanted.length * dim);
  let next = 0;
  wanted.forEach((p, i) => {
    const cached = found.get(p.hash);
    if (cached) vectors.set(cached, i * dim);
    else {
      vectors.set(fresh.subarray(next * dim, (next + 1) * dim), i * dim);
      next += 1;
    }
  });
  return { vector, chunks: Uint32Array.from(wanted.map((p) => p.chunk)), vectors };
}

/**
 * What a question reads meaning with, as `search` and `featureCard` take it
 * after their own arguments: MiniLM's whole index (the query's vector), else
 * MiniLM over its candidates ({@link rerankingFor}), else nothing (the
 * static table).
 */
async function meaningFor(ws: Workspace, query: string, options: Partial<SearchOptions>): Promise<[Float32Array?, Uint32Array?, Float32Array?]> {
  const whole = await queryVector(ws, query, options?.mode);
  if (whole) return [whole];
  const reranking = await rerankingFor(ws, query, options);
  return reranking ? [reranking.vector, reranking.chunks, reranking.vectors] : [];
}

/** A search, reading meaning as {@link meaningFor} says. */
async function search(ws: Workspace, query: string, options: Partial<SearchOptions>): Promise<SearchResults> {
  return ws.search(query, options, ...(await meaningFor(ws, query, options)));
}

/** A feature card, on the ranking its question's search gives. */
async function featureCard(ws: Workspace, query: string, budget: number): Promise<FeatureCard> {
  return ws.featureCard(query, budget, ...(await meaningFor(ws, query, {})));
}

/**
 * Gives every chunk of the current index a vector: cached ones first, then
 * the model's. Stops when another index replaces this one or another pool
 * replaces `model`.
 */
async function embedAll(ws: Workspace, model: MiniLmPool, mine: number): Promise<void> {
  const info = model.info;
  const base = { backend: info.backend, fallback: info.fallback, workers: model.size, error: null };
  const current = (): boolean => mine === session && minilm === model;
  const cache = await cacheFor(model);
  const pending = ws.pendingChunks();
  const chunks = ws.embeddingStatus().chunks;
  const found = cache ? await cache.getMany(pending.map((p) => p.hash)) : new Map<string, Float32Array>();
  if (!current()) return;
  const hits = pending.filter((p) => found.has(p.hash));
  if (hits.length > 0) {
    const vectors = new Float32Array(hits.length * info.dim);
    hits.forEach((p, i) => vectors.set(found.get(p.hash) as Float32Array, i * info.dim));
    ws.setVectors(Uint32Array.from(hits.map((p) => p.chunk)), vectors);
  }
  const todo = pending.filter((p) => !found.has(p.hash));
  let done = chunks - todo.length;
  const cached = hits.length;
  report(mine, { ...base, state: 'embedding', chunks, done, cached, etaSeconds: null });

  let size = 2;
  let spent = 0;
  let embedded = 0;
  for (let at = 0; at < todo.length; ) {
    if (!current()) return;
    const batch = todo.slice(at, at + size);
    const started = performance.now();
    const ids = Uint32Array.from(batch.map((p) => p.chunk));
    const generation = ws.generation;
    const vectors = await model.embed(ws.chunkTexts(ids));
    if (!current() || !ws.setVectors(ids, vectors, generation)) return;
    const elapsed = performance.now() - started;
    await cache?.putMany(batch.map((p) => p.hash), vectors, info.dim).catch(() => undefined);
    at += batch.length;
    done += batch.length;
    embedded += batch.length;
    spent += elapsed;
    size = Math.max(1, Math.min(MAX_BATCH * model.size, Math.round((batch.length * BATCH_TARGET_MS) / Math.max(elapsed, 1))));
    const etaSeconds = Math.round(((todo.length - at) * spent) / embedded / 1000);
    report(mine, { state: 'embedding', done, etaSeconds });
  }
  if (!current()) return;
  report(mine, { state: 'building', etaSeconds: 0 });
  ws.buildDense();
  report(mine, { state: 'ready', serving: 'minilm', etaSeconds: 0 });
}

/**
 * Builds the static lane for the current index (once per index), then starts
 * MiniLM where `options` and the browser allow. Resolves to where meaning
 * stands then; MiniLM's progress follows as unsolicited reports.
 */
async function startMeaning(ws: Workspace, options: MeaningOptions, modelBase: string): Promise<EmbeddingProgress> {
  const mine = session;
  const status = ws.embeddingStatus();
  meaning ??= {
    state: 'waiting', serving: null, waiting: null, staticError: null, staticMs: null, staticFrom: null, backend: null, fallback: null, workers: null,
    chunks: status.chunks, done: status.embedded, cached: 0, etaSeconds: null, error: null,
  };
  if (!status.static_ready) {
    try {
      const started = performance.now();
      const info = await loadStatic(ws, modelBase);
      if (mine !== session) throw new Error('another repository was opened meanwhile');
      const loaded = performance.now();
      // A bundle may carry the lane's vectors, made with this very table: they are taken as they are.
      const staticFrom = ws.embeddingStatus().static_stored === info.model ? 'bundle' : 'texts';
      ws.buildStatic();
      const staticMs = { load: Math.round(loaded - started), build: Math.round(performance.now() - loaded) };
      report(mine, { serving: meaning.serving ?? 'static', staticError: null, staticMs, staticFrom });
    } catch (error) {
      report(mine, { staticError: errorMessage(error) });
    }
  }
  const pending = status.chunks - status.embedded;
  const busy = meaning.state === 'loading' || meaning.state === 'embedding' || meaning.state === 'building';
  if (busy && modelBackend === options.backend) return meaning;
  if (!options.minilm) return report(mine, { state: 'waiting', waiting: 'not asked for' }) ?? meaning;
  if (options.backend === 'auto' && pending > 0 && !(await webGpuAdapter())) {
    // Embedding every chunk on the CPU takes minutes to hours, so it waits
    // to be asked; MiniLM still reads each question's candidates there,
    // loaded now in the background (searches read the static table alone
    // until it is).
    loadModel('cpu', modelBase).catch(() => undefined);
    return report(mine, { state: 'waiting', waiting: 'no WebGPU in this browser; MiniLM reads each question’s best candidates on the CPU, and every chunk when asked' }) ?? meaning;
  }
  report(mine, { state: 'loading', waiting: null, error: null });
  try {
    const loaded = await loadModel(options.backend, modelBase);
    const info = loaded.info;
    report(mine, { backend: info.backend, fallback: info.fallback, workers: loaded.size });
    embedAll(ws, loaded, mine).catch((error: unknown) => {
      if (minilm === loaded) report(mine, { state: 'failed', error: errorMessage(error) });
    });
  } catch (error) {
    report(mine, { state: 'failed', error: errorMessage(error) });
  }
  return meaning;
}

/** A new index replaced the last: meaning starts over for it. */
function newSession(): void {
  session += 1;
  meaning = undefined;
}

async function handle(request: WorkerRequest): Promise<WorkerReply> {
  const ws = await getWorkspace();
  const { id } = request;
  switch (request.op) {
    case 'indexZip': {
      const onProgress = throttledProgress((progress) =>
        scope.postMessage({ id, type: 'progress', progress }),
      );
      const bytes = new Uint8Array(request.bytes);
      pool?.startTally();
      const sample = await parseSample(ws, bytes, request.exclude);
      const staged = ws.stageZip(request.name, bytes, request.exclude, onProgress, request.heapBudget);
      for (const index of request.scip) ws.attachScip(index.name, new Uint8Array(index.bytes));
      const value = await indexStaged(ws, staged, onProgress, await sample());
      newSession();
      return { id, type: 'result', op: 'indexZip', value };
    }
    case 'indexFiles': {
      const onProgress = throttledProgress((progress) => scope.postMessage({ id, type: 'progress', progress }));
      pool?.startTally();
      const staged = ws.stageFiles(request.name, request.paths, new Uint8Array(request.data), request.ends, onProgress);
      const value = await indexStaged(ws, staged, onProgress);
      newSession();
      return { id, type: 'result', op: 'indexFiles', value };
    }
    case 'prepare':
      return { id, type: 'result', op: 'prepare', value: (await startPool())?.size ?? 0 };
    case 'plan':
      return { id, type: 'result', op: 'plan', value: planZip(request.name, new Uint8Array(request.bytes)) };
    case 'search':
      return {
        id, type: 'result', op: 'search',
        value: await search(ws, request.query, request.options),
      };
    case 'startEmbedding':
      return { id, type: 'result', op: 'startEmbedding', value: await startMeaning(ws, request.options, request.modelBase) };
    case 'embedTexts': {
      const loaded = await loadModel(request.backend, request.modelBase, request.workers);
      return { id, type: 'result', op: 'embedTexts', value: await loaded.embed(request.texts) };
    }
    case 'memory': {
      const heap = heapStats() as HeapStats;
      const value = {
        heapBytes: heap.linear_bytes, liveBytes: heap.live_bytes, peakLiveBytes: heap.peak_live_bytes, parse: lastParse,
        minilmHeapBytes: (await model?.catch(() => undefined))?.heapBytes ?? [],
      };
      return { id, type: 'result', op: 'memory', value };
    }
    case 'file':
      return { id, type: 'result', op: 'file', value: ws.file(request.path) };
    case 'callers':
    case 'callees':
    case 'impact':
      return { id, type: 'result', op: request.op, value: ws[request.op](request.symbol, request.depth) };
    case 'path':
      return { id, type: 'result', op: 'path', value: ws.path(request.from, request.to, request.depth) };
    case 'neighbors':
      return { id, type: 'result', op: 'neighbors', value: ws.neighbors(request.symbol, request.types, request.direction) };
    case 'symbol':
      return { id, type: 'result', op: 'symbol', value: ws.symbol(request.symbol) };
    case 'query':
      return { id, type: 'result', op: 'query', value: ws.query(request.text, request.params) };
    case 'call': {
      if (!(CALL_METHODS as readonly string[]).includes(request.method)) throw new Error(`unknown method ${request.method}`);
      const method = ws[request.method] as (...args: unknown[]) => unknown;
      const args: unknown[] = [...request.args];
      // The questions that read meaning get the query's MiniLM vector, where there is one.
      if (request.method === 'featureCard') {
        return { id, type: 'result', op: 'call', value: await featureCard(ws, args[0] as string, args[1] as number) };
      }
      if (request.method === 'testsFor') args.push(await queryVector(ws, (args[0] as Change).text ?? ''));
      const value = await method.apply(ws, args);
      if (request.method === 'importBundle') newSession();
      return { id, type: 'result', op: 'call', value };
    }
  }
}

/** Requests run strictly one after another, even while wasm initialises. */
let queue: Promise<void> = Promise.resolve();

scope.addEventListener('message', (event) => {
  const request = event.data;
  queue = queue.then(async () => {
    try {
      scope.postMessage(await handle(request));
    } catch (error) {
      // A trap (a Rust panic) leaves the instance's memory in whatever state
      // it stopped in: the client replaces this worker.
      const crashed = error instanceof WebAssembly.RuntimeError;
      // The engine's panic hook leaves the panic's message here.
      const panic = (scope as unknown as { fathomPanic?: string }).fathomPanic;
      const message = crashed && panic ? panic.replace(/\s+/g, ' ') : errorMessage(error);
      scope.postMessage({ id: request.id, type: 'error', message, crashed });
    }
  });
});

// The engine compiles as soon as the page starts its worker, not at the first
// request: a person takes longer to pick an archive than compiling takes. A
// failure is reported by the first request, which awaits the same promise.
getWorkspace().catch(() => undefined);
