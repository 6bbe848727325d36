// Module worker hosting the wasm engine. Requests are served one at a time, in
// order; a failing request turns into an error reply and the worker keeps going.
import type { PendingChunk, StagedInfo, Workspace } from '../../pkg/fathom_wasm.js';
import wasmUrl from '../../pkg/fathom_wasm_bg.wasm?url';
import viewerUrl from '../../pkg/fathom_wasm_viewer_bg.wasm.xz?url';
import minilmUrl from '../../pkg/fathom_wasm_minilm_bg.wasm?url';
import { EmbeddingCache } from './embedding-cache';
import { FetchPool, IN_FLIGHT, type Kept, type Slot, Unreachable, eachLimited, errorMessage, fetchChecked, openStore } from './fetching';
import { Cancelled, MiniLmPool, cpuWorkers, onCpu } from './minilm-pool';
import { POOL_MIN_BYTES, ParsePool, poolSize } from './parse-pool';
import { CALL_METHODS } from './protocol';
import type {
  Backend,
  Change,
  HeapStats,
  IndexSummary,
  SplitOpened,
  KeptOffline,
  MemoryReport,
  OpResults,
  EmbeddingProgress,
  LiveResults,
  MeaningOptions,
  Measured,
  Progress,
  Reading,
  Refinement,
  SearchOptions,
  SearchResults,
  SplitNeed,
  SplitStep,
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

/** Compiles a module as it downloads, downloading it once whatever happens. */
async function compile(url: string): Promise<WebAssembly.Module> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`HTTP ${response.status} for ${url}`);
  // Streaming compilation needs the server to say application/wasm; otherwise, from the bytes.
  if ((response.headers.get('content-type') ?? '').split(';')[0]?.trim() === 'application/wasm') return WebAssembly.compileStreaming(response);
  return WebAssembly.compile(await response.arrayBuffer());
}

/**
 * Compiles an xz-compressed module as it downloads and inflates (the viewer
 * ships so: its size on any host, compressing or not). The decoder is a
 * chunk of its own, fetched beside the module.
 */
async function compileXz(url: string): Promise<WebAssembly.Module> {
  const [response, { XzReadableStream }] = await Promise.all([fetch(url), import('xz-decompress')]);
  if (!response.ok || !response.body) throw new Error(`HTTP ${response.status} for ${url}`);
  const inflated = new Response(new XzReadableStream(response.body), { headers: { 'content-type': 'application/wasm' } });
  return WebAssembly.compileStreaming(inflated);
}

/**
 * Whether this worker runs the viewer (`FathomClient`'s `viewer` option): the
 * engine built without grammars, with bindings of its own, which reads split
 * bundles and parses nothing.
 */
const VIEWER = (self as { name?: string }).name === 'fathom-viewer';

function compileEngine(): Promise<WebAssembly.Module> {
  wasmModule ??= VIEWER ? compileXz(viewerUrl) : compile(wasmUrl);
  return wasmModule;
}

/** The engine's bindings, or the viewer's: each module has its own (their imports differ). */
type Bindings = typeof import('../../pkg/fathom_wasm.js');
let bindings: Bindings | undefined;

function getWorkspace(): Promise<Workspace> {
  workspace ??= (async () => {
    const glue: Promise<Bindings> = VIEWER ? import('../../pkg/fathom_wasm_viewer.js') : import('../../pkg/fathom_wasm.js');
    const [loaded, module] = await Promise.all([glue, compileEngine()]);
    await loaded.default({ module_or_path: module });
    bindings = loaded;
    return new loaded.Workspace();
  })().catch((error: unknown) => {
    throw new Error(`failed to load the Fathom engine: ${errorMessage(error)}`);
  });
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
// and serves at once. MiniLM runs in the background: on the faster of the
// lanes this browser has (its CPU workers, and WebGPU where an adapter
// exists), timed on a short batch of the repository's own chunks, not
// chosen by the adapter's presence. Where that lane would embed every chunk
// within a couple of minutes it does, and its index takes over once built;
// otherwise MiniLM reads only each question's candidates, and says so. Both
// are fetched from the app's own origin and checked against their pinned
// hashes (in Rust); MiniLM's weights only when MiniLM is about to run, and
// with them MiniLM's own module (burn and its WebGPU stack, most of the
// engine's code), which the engine module does without.
//
// A search never waits for MiniLM: its words, names and static lane answer
// at once, and MiniLM's reading of the question (its vector, and its
// candidates' vectors) refines the answer when it comes. That reading goes
// before any bulk embedding (MiniLmPool's queue), a newer question cancels
// it, and one that cannot be read in time is answered without it.

const WEIGHTS_FILE = 'minilm-l6-v2.f16.safetensors';
const TOKENIZER_FILE = 'minilm-l6-v2.tokenizer.json';
const STATIC_FILE = 'minilm-l6-v2.static-v1.safetensors';
/** A bulk batch should take about this long: a question waits at most that for a worker. */
const BATCH_TARGET_MS = 300;
/** The largest batch a worker is given. */
const MAX_BATCH = 32;
/** With backend "auto", MiniLM embeds every chunk where the faster lane does it within this many seconds. */
const WHOLE_WITHIN_SECONDS = 120;
/**
 * How long a question's MiniLM reading may take; past it, words and the
 * static lane answer alone. MiniLM reads a question's 48 candidates in about
 * 13 s on 2 cores in Chromium (full-length chunks), and the first answer
 * never waits for it: a refinement that comes within this is worth showing.
 */
const READING_DEADLINE_MS = 20_000;
/** Chunks of the repository timed on each lane to choose between them. */
const SAMPLE_CHUNKS = 8;
/** A lane's first batch compiles its kernels (WebGPU's shaders), untimed: it is given this long. */
const WARM_UP_MS = 30_000;
/** A lane still timing its batch after this many times the CPU's time for it is the slower: it is stopped. */
const MEASURE_SLACK = 2;
/** Readings kept per index, for a question asked again (a refresh, its card). */
const READINGS_KEPT = 32;

/** MiniLM's pools by where they run ("cpu:2", "webgpu:1"), loading or loaded. */
const pools = new Map<string, Promise<MiniLmPool>>();
/** The pool that reads questions and embeds chunks: the faster lane measured, or the one asked for. */
let minilm: MiniLmPool | undefined;
/** The lane chosen by timing, and the timings, once made: made once per page. */
let choice: Promise<{ pool: MiniLmPool; measured: Measured[] }> | undefined;
/** A pool loaded for `embedTexts` alone (benchmarks, checks), stopped when another replaces it. */
let probe: MiniLmPool | undefined;
/** The static table, once loaded into the engine (once per page). */
let staticTable: StaticInfo | undefined;
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

/** The static table's and the tokenizer's bytes (network only: no engine call). */
function staticBytes(base: string): Promise<[Uint8Array, Uint8Array]> {
  return Promise.all([fetchBytes(base + STATIC_FILE), tokenizerBytes(base)]);
}

/** The static table's bytes, where it is not loaded yet: fetched outside the queue, before `startEmbedding` runs. */
function staticBytesIfNeeded(base: string): Promise<[Uint8Array, Uint8Array] | Error | null> {
  return staticTable ? Promise.resolve(null) : staticBytes(base).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
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
 * (one per core by default); loaded once per place, and kept until dropped.
 * `weights`, where the caller fetched them already for another pool.
 */
function loadPool(backend: Backend, base: string, workers = cpuWorkers(), weights?: Promise<Uint8Array>): Promise<MiniLmPool> {
  const key = `${backend}:${backend === 'webgpu' ? 1 : workers}`;
  let loading = pools.get(key);
  if (!loading) {
    const mine = (async () => {
      const [bytes, words, module] = await Promise.all([weights ?? fetchBytes(base + WEIGHTS_FILE), tokenizerBytes(base), minilmEngine()]);
      return MiniLmPool.start(module, bytes, words, backend, workers);
    })();
    pools.set(key, mine);
    mine.catch(() => {
      if (pools.get(key) === mine) pools.delete(key);
    });
    loading = mine;
  }
  return loading;
}

/** Stops a pool and forgets it; the lane chosen with it is chosen again. */
function dropPool(pool: MiniLmPool): void {
  pool.terminate();
  for (const [key, loading] of pools) void loading.then((p) => p === pool && pools.get(key) === loading && pools.delete(key), () => undefined);
  if (minilm === pool) minilm = undefined;
  if (probe === pool) probe = undefined;
  void choice?.then((c) => {
    if (c.pool === pool) choice = undefined;
  }, () => undefined);
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

/** `work`, or a rejection once `ms` have passed. */
function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  if (!Number.isFinite(ms)) return work;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took over ${Math.round(ms)} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * Milliseconds `pool` takes to embed `sample` on its own, once warmed up on
 * its first text: each part's time on its worker, so that a question's
 * pieces, which go first, are not counted.
 */
async function timeBatch(pool: MiniLmPool, sample: string[], limitMs: number): Promise<number> {
  await within(pool.embed(sample.slice(0, 1)), WARM_UP_MS, `warming up MiniLM on ${pool.info.backend}`);
  const timing = { spanMs: 0 };
  await within(pool.embed(sample, { timing }), limitMs, `MiniLM on ${pool.info.backend}`);
  return timing.spanMs;
}

/**
 * Milliseconds WebGPU takes over `sample`, or null where it is the slower:
 * warmed up on a few words (its shaders compile), then probed with the
 * sample's shortest text before it is given the rest. Work handed to a GPU
 * cannot be taken back, and a software adapter takes seconds a chunk, in
 * the process that also paints the page: a slow one is found on one short
 * text, not on the whole batch.
 */
async function timeWebgpu(webgpu: MiniLmPool, sample: string[], cpu: MiniLmPool, cpuMs: number): Promise<number | null> {
  await within(webgpu.embed(['warm up the shaders']), WARM_UP_MS, 'warming up MiniLM on WebGPU');
  const shortest = sample.reduce((a, b) => (b.length < a.length ? b : a));
  const onCpu = cpu.estimateMs([shortest]) ?? cpuMs / sample.length;
  const probe = { spanMs: 0 };
  await within(webgpu.embed([shortest], { timing: probe }), Math.max(1000, onCpu * MEASURE_SLACK * 4), 'MiniLM on WebGPU');
  if (probe.spanMs > onCpu * MEASURE_SLACK * cpu.size) return null;
  const timing = { spanMs: 0 };
  await within(webgpu.embed(sample, { timing }), cpuMs * MEASURE_SLACK, 'MiniLM on WebGPU');
  return timing.spanMs;
}

/** A lane's speed over `sample` in `ms` (0: it did not finish). */
function measuredOf(pool: MiniLmPool | undefined, backend: string, sample: string[], ms: number | null): Measured {
  return { backend: pool?.info.backend ?? backend, workers: pool?.size ?? 1, chunksPerSecond: ms === null ? 0 : (sample.length * 1000) / ms };
}

/**
 * MiniLM on the faster lane, timed on `sample` (chunks of the repository):
 * the CPU's workers always, and WebGPU where an adapter exists. The CPU's
 * pool loads first and reads questions meanwhile; WebGPU then gets the same
 * batch, warmed up first, and is stopped once it has taken twice the CPU's
 * time. The slower pool is stopped.
 */
async function chooseLane(base: string, sample: string[], onMeasuring: (pool: MiniLmPool) => void): Promise<{ pool: MiniLmPool; measured: Measured[] }> {
  const gpu = await webGpuAdapter();
  const weights = fetchBytes(base + WEIGHTS_FILE);
  const cpu = await loadPool('cpu', base, cpuWorkers(), weights);
  minilm = cpu;
  onMeasuring(cpu);
  // One lane at a time: a software adapter loading beside the CPU's timing would slow it.
  const cpuMs = await timeBatch(cpu, sample, Number.POSITIVE_INFINITY);
  const measured = [measuredOf(cpu, 'cpu', sample, cpuMs)];
  if (!gpu) return { pool: cpu, measured };
  const gpuLoad = loadPool('webgpu', base, 1, weights);
  gpuLoad.catch(() => undefined);
  let webgpu: MiniLmPool | undefined;
  let webgpuMs: number | null = null;
  try {
    webgpu = await within(gpuLoad, WARM_UP_MS, 'loading MiniLM on WebGPU');
    // The worker fell back to the CPU (its device failed): no second lane.
    if (onCpu(webgpu.info)) throw new Error(webgpu.info.fallback ?? 'WebGPU fell back to the CPU');
    webgpuMs = await timeWebgpu(webgpu, sample, cpu, cpuMs);
  } catch {
    // Too slow, or unusable: measured as 0 chunks a second.
  }
  measured.push(measuredOf(webgpu, 'webgpu', sample, webgpuMs));
  measured.sort((a, b) => b.chunksPerSecond - a.chunksPerSecond);
  if (webgpu && webgpuMs !== null && webgpuMs < cpuMs) {
    dropPool(cpu);
    minilm = webgpu;
    return { pool: webgpu, measured };
  }
  if (webgpu) dropPool(webgpu);
  else void gpuLoad.then(dropPool, () => undefined);
  return { pool: cpu, measured };
}

/**
 * Up to {@link SAMPLE_CHUNKS} chunks' texts, spread over the chunks still to
 * embed (the engine hands them out by length), or over every chunk where
 * none is.
 */
function sampleTexts(ws: Workspace): string[] {
  const pending = ws.pendingChunks().map((p) => p.chunk);
  const ids = pending.length > 0 ? pending : Array.from({ length: ws.embeddingStatus().chunks }, (_, i) => i);
  const step = Math.max(1, ids.length / SAMPLE_CHUNKS);
  const picked: number[] = [];
  for (let at = step / 2; at < ids.length && picked.length < SAMPLE_CHUNKS; at += step) picked.push(ids[Math.floor(at)] as number);
  return picked.length > 0 ? ws.chunkTexts(Uint32Array.from(picked)) : ['fn main() { println!("hello"); }'];
}

/** Reports a change of where meaning stands (unsolicited, id 0), for the current index only. */
function report(mine: number, change: Partial<EmbeddingProgress>): EmbeddingProgress | undefined {
  if (mine !== session || !meaning) return undefined;
  meaning = { ...meaning, ...change };
  scope.postMessage({ id: 0, type: 'embedding', progress: meaning });
  return meaning;
}

/** The cache of MiniLM's vectors for the loaded model, opened once per model (undefined where IndexedDB is unavailable). */
let vectorCache: { model: string; cache: Promise<EmbeddingCache | undefined> } | undefined;

function cacheFor(model: MiniLmPool): Promise<EmbeddingCache | undefined> {
  const key = model.info.weights_sha256;
  if (vectorCache?.model !== key) vectorCache = { model: key, cache: EmbeddingCache.open(key).catch(() => undefined) };
  return vectorCache.cache;
}

// ---- A question's reading ---------------------------------------------------

/** What a search or card takes after its own arguments: the query's MiniLM vector, and its candidates' chunks and vectors. */
type MeaningArgs = [vector?: Float32Array, chunks?: Uint32Array, vectors?: Float32Array];

/** A reading's end: the arguments, or why there are none. */
type ReadOutcome = { args: MeaningArgs } | { reading: Reading };

/** The question MiniLM is reading now: a newer one cancels it. */
let reading: { key: string; query: string; whole: boolean; controller: AbortController; outcome: Promise<ReadOutcome> } | undefined;
/** Readings done for the current index, by question and candidates. */
const readings = new Map<string, MeaningArgs>();

/** How a question is read: at once from a kept reading, later from MiniLM, or not at all (and why). */
type Plan = { ready: MeaningArgs } | { pending: Promise<ReadOutcome> } | { none: string | null };

function seconds(ms: number): string {
  return ms < 90_000 ? `${Math.max(1, Math.round(ms / 1000))} s` : `${Math.round(ms / 60_000)} min`;
}

/**
 * Plans MiniLM's reading of a question: where MiniLM's whole index serves,
 * the query's vector; where it does not, the query's and its candidates'
 * vectors (the best few dozen chunks of its words, names and static table),
 * those in the cache by content hash taken from it. `wholeOnly`: only the
 * query's vector against the whole index (tests for a change). Starts the
 * reading, cancelling another question's; a reading MiniLM's measured pace
 * says cannot end in time is not started.
 */
function planReading(ws: Workspace, query: string, options: Partial<SearchOptions>, wholeOnly = false): Plan {
  const pool = minilm;
  if (options?.mode === 'lexical' || !query.trim()) return { none: null };
  if (!pool) {
    const state = meaning?.state;
    return { none: state === 'loading' || state === 'measuring' ? 'MiniLM is loading' : null };
  }
  const whole = ws.embeddingStatus().dense_ready;
  if (wholeOnly && !whole) return { none: null };
  const wanted = whole ? [] : ws.candidates(query, options);
  if (!whole && wanted.length === 0) return { none: null };
  const key = `${pool.info.weights_sha256}\u0000${query}\u0000${wanted.map((p) => p.chunk).join(',')}`;
  const kept = readings.get(key);
  if (kept) return { ready: kept };
  // The same question in flight (its search's reading, asked for by its card): that reading serves.
  if (reading && (reading.key === key || (reading.query === query && reading.whole === whole))) return { pending: reading.outcome };
  reading?.controller.abort('a newer question took its place');
  const controller = new AbortController();
  const texts = wanted.length > 0 ? ws.chunkTexts(Uint32Array.from(wanted.map((p) => p.chunk))) : [];
  const generation = ws.generation;
  const outcome = readQuestion(pool, query, wanted, texts, controller.signal).then(
    (args): ReadOutcome => {
      if (ws.generation !== generation) return { reading: { state: 'cancelled', detail: 'another index replaced this one' } };
      if (readings.size >= READINGS_KEPT) readings.delete(readings.keys().next().value as string);
      readings.set(key, args);
      return { args };
    },
    (error: unknown): ReadOutcome => {
      if (error instanceof Cancelled) return { reading: { state: error.late ? 'late' : 'cancelled', detail: error.message } };
      return { reading: { state: 'failed', detail: errorMessage(error) } };
    },
  );
  const mine = { key, query, whole, controller, outcome };
  reading = mine;
  const timer = setTimeout(
    () => controller.abort(new Cancelled(`MiniLM took over ${seconds(READING_DEADLINE_MS)} on ${pool.info.backend}`, true)),
    READING_DEADLINE_MS,
  );
  void outcome.finally(() => {
    clearTimeout(timer);
    if (reading === mine) reading = undefined;
  });
  return { pending: outcome };
}

/** MiniLM's reading of a question: its vector, and its candidates' (cached ones from the cache). */
async function readQuestion(pool: MiniLmPool, query: string, wanted: PendingChunk[], texts: string[], signal: AbortSignal): Promise<MeaningArgs> {
  if (wanted.length === 0) return [await pool.embedQuery(query, signal)];
  const cache = await cacheFor(pool);
  const found = cache ? await cache.getMany(wanted.map((p) => p.hash)).catch(() => new Map<string, Float32Array>()) : new Map<string, Float32Array>();
  const todo = wanted.map((p, i) => ({ p, text: texts[i] as string })).filter(({ p }) => !found.has(p.hash));
  const estimate = pool.estimateMs([query, ...todo.map((t) => t.text)]);
  if (estimate !== null && estimate > READING_DEADLINE_MS) {
    throw new Cancelled(`MiniLM would take about ${seconds(estimate)} to read it on ${pool.info.backend}`, true);
  }
  const dim = pool.info.dim;
  // Each piece is cached as it ends: a reading cut short (a deadline, a newer question) is not lost.
  const onPiece = (at: number[], vectors: Float32Array) => {
    if (cache) void cache.putMany(at.map((i) => (todo[i] as (typeof todo)[number]).p.hash), vectors, dim).catch(() => undefined);
  };
  const [fresh, vector] = await Promise.all([
    todo.length > 0 ? pool.embed(todo.map((t) => t.text), { lane: 'question', signal, onPiece }) : Promise.resolve(new Float32Array(0)),
    pool.embedQuery(query, signal),
  ]);
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
  return [vector, Uint32Array.from(wanted.map((p) => p.chunk)), vectors];
}

/** The arguments a plan gives once it ends (none where MiniLM adds nothing, or could not read in time). */
async function argsOf(plan: Plan): Promise<MeaningArgs> {
  if ('ready' in plan) return plan.ready;
  if ('none' in plan) return [];
  const outcome = await plan.pending;
  return 'args' in outcome ? outcome.args : [];
}

/** The reading a first answer reports, from its plan. */
function readingOf(plan: Plan): Reading {
  if ('ready' in plan) return { state: 'done', detail: null };
  if ('none' in plan) return { state: 'none', detail: plan.none };
  return { state: 'reading', detail: minilm ? `on ${minilm.info.backend}` : null };
}

/** A search reading meaning as `args` give it. */
function searchWith(ws: Workspace, query: string, options: Partial<SearchOptions>, [vector, chunks, vectors]: MeaningArgs): SearchResults {
  return ws.search(query, options, vector, chunks, vectors);
}

/**
 * A search's first answer, at once: with MiniLM where a reading of this very
 * question is kept, else with words, names and the static lane. Where MiniLM
 * is reading the question, `refine` hears its refinement (in the queue, once
 * the reading ends).
 */
function search(ws: Workspace, query: string, options: Partial<SearchOptions>, refine: (refinement: Refinement) => void): LiveResults {
  const plan = planReading(ws, query, options);
  const first = searchWith(ws, query, options, 'ready' in plan ? plan.ready : []);
  if ('pending' in plan) {
    const generation = ws.generation;
    void plan.pending.then((outcome) =>
      enqueue(async () => {
        if ('reading' in outcome) refine({ results: null, reading: outcome.reading });
        else if (ws.generation !== generation) refine({ results: null, reading: { state: 'cancelled', detail: 'another index replaced this one' } });
        else refine({ results: searchWith(ws, query, options, outcome.args), reading: { state: 'done', detail: null } });
      }),
    );
  }
  return { ...first, reading: readingOf(plan) };
}

// ---- Embedding every chunk ---------------------------------------------------

/**
 * Gives every chunk of the current index a vector: cached ones first, then
 * the model's, in bulk batches that questions go before. Where the rest
 * would take longer than `withinSeconds` on this pool (`speed` chunks a
 * second), it waits instead, and MiniLM reads each question's candidates.
 * Stops when another index replaces this one or another pool replaces `model`.
 */
async function embedAll(ws: Workspace, model: MiniLmPool, mine: number, withinSeconds: number, speed: number | null): Promise<void> {
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
  const exactSeconds = speed ? todo.length / speed : null;
  const wholeSeconds = exactSeconds === null ? null : Math.ceil(exactSeconds);
  if (todo.length > 0 && exactSeconds !== null && exactSeconds > withinSeconds) {
    report(mine, { ...base, state: 'waiting', waiting: 'longer than is worth it', done, cached, wholeSeconds, etaSeconds: null });
    return;
  }
  report(mine, { ...base, state: 'embedding', waiting: null, chunks, done, cached, wholeSeconds, etaSeconds: wholeSeconds });

  let size = 2;
  let spent = 0;
  let embedded = 0;
  for (let at = 0; at < todo.length; ) {
    if (!current()) return;
    const batch = todo.slice(at, at + size);
    const started = performance.now();
    const ids = Uint32Array.from(batch.map((p) => p.chunk));
    const generation = ws.generation;
    const vectors = await model.embed(ws.chunkTexts(ids), { lane: 'bulk' });
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
  readings.clear();
  report(mine, { state: 'ready', serving: 'minilm', etaSeconds: 0 });
}

/**
 * Builds the static lane for the current index (once per index) from the
 * table's bytes, then starts MiniLM in the background where `options` ask
 * for it. Resolves, once the static lane is built, to where meaning stands
 * then; MiniLM's progress follows as unsolicited reports.
 */
function startMeaning(ws: Workspace, options: MeaningOptions, modelBase: string, table: [Uint8Array, Uint8Array] | Error | null): EmbeddingProgress {
  const mine = session;
  const status = ws.embeddingStatus();
  meaning ??= {
    state: 'waiting', serving: null, waiting: null, staticError: null, staticMs: null, staticFrom: null, backend: null, fallback: null, workers: null,
    chunks: status.chunks, done: status.embedded, cached: 0, etaSeconds: null, error: null, measured: [], wholeSeconds: null,
  };
  if (!status.static_ready) {
    try {
      if (table instanceof Error) throw table;
      const started = performance.now();
      if (!staticTable) {
        if (!table) throw new Error('the static table was not fetched');
        staticTable = ws.loadStatic(...table);
      }
      const loaded = performance.now();
      // A bundle may carry the lane's vectors, made with this very table: they are taken as they are.
      const staticFrom = ws.embeddingStatus().static_stored === staticTable.model ? 'bundle' : 'texts';
      ws.buildStatic();
      const staticMs = { load: Math.round(loaded - started), build: Math.round(performance.now() - loaded) };
      report(mine, { serving: meaning.serving ?? 'static', staticError: null, staticMs, staticFrom });
    } catch (error) {
      report(mine, { staticError: errorMessage(error) });
    }
  }
  const busy = ['loading', 'measuring', 'embedding', 'building'].includes(meaning.state);
  if (busy && options.backend === 'auto') return meaning;
  if (!options.minilm) return report(mine, { state: 'waiting', waiting: 'not asked for' }) ?? meaning;
  report(mine, { state: 'loading', waiting: null, error: null });
  void runMinilm(ws, options, modelBase, mine).catch((error: unknown) => {
    report(mine, { state: 'failed', error: errorMessage(error) });
  });
  return meaning;
}

/**
 * MiniLM for the current index: on the lane asked for, or with "auto" on
 * the faster measured; then every chunk, where that is worth it.
 */
async function runMinilm(ws: Workspace, options: MeaningOptions, base: string, mine: number): Promise<void> {
  let pool: MiniLmPool;
  let measured: Measured[] = [];
  let within = Number.POSITIVE_INFINITY;
  if (options.backend === 'auto') {
    // Timed once per page: the sample is read only where no lane is chosen yet.
    choice ??= chooseLane(base, sampleTexts(ws), (cpu) =>
      report(mine, { state: 'measuring', backend: cpu.info.backend, fallback: cpu.info.fallback, workers: cpu.size }),
    );
    const chosen = choice;
    chosen.catch(() => {
      if (choice === chosen) choice = undefined;
    });
    ({ pool, measured } = await chosen);
    within = options.wholeWithinSeconds ?? WHOLE_WITHIN_SECONDS;
  } else {
    pool = await loadPool(options.backend, base);
    for (const other of pools.values()) void other.then((p) => p !== pool && p !== probe && dropPool(p), () => undefined);
    choice = undefined;
  }
  if (mine !== session) return;
  minilm = pool;
  readings.clear();
  const info = pool.info;
  report(mine, { backend: info.backend, fallback: info.fallback, workers: pool.size, measured });
  const speed = measured.find((m) => m.backend === info.backend)?.chunksPerSecond ?? null;
  await embedAll(ws, pool, mine, within, speed);
}

// ---- Split bundles ------------------------------------------------------------

/**
 * A split bundle open in place of an index (`openSplit`): its folder's URL,
 * and the items being fetched, by hash, so two questions that need one item
 * fetch it once.
 */
let split:
  | {
      base: string;
      fetching: Map<string, Promise<void>>;
      warm?: boolean;
      local?: Map<string, Blob>;
      /** Where the tokenizer is fetched from, for the static lane, and whether the bundle carries one (set on opening). */
      modelBase: string;
      hasMeaning?: boolean;
      /** The static lane read, once a search asked for meaning: `true`, or why not. */
      meaning?: Promise<true | string>;
    }
  | undefined;
/** The last `openSplit` under way: a question asked meanwhile waits for it. */
let opening: Promise<unknown> = Promise.resolve();

/**
 * The most waves of fetches one question may take: a search needs 3, a walk
 * of the graph one more than its depth, and the name pages and the
 * symbol's own edges before it.
 */
const MAX_WAVES = 8;

/** The workers that fetch a split bundle's items from its host. */
const fetches = new FetchPool();

/** Fetches a split bundle's root from `base` (a folder's URL) and opens it. */
async function openSplit(base: string, modelBase: string): Promise<SplitOpened> {
  const url = new URL('root.fathom', base).href;
  // The module downloads and compiles while the root comes: neither waits for the other.
  void getWorkspace().catch(() => undefined);
  const { root, warm } = await fetchRoot(url, base);
  return install(url, root, { base, fetching: new Map(), warm, modelBase });
}

/**
 * Opens a split bundle from a folder's files (paths relative to it): its
 * root now, each item from its file when a question needs it.
 */
async function openSplitFiles(name: string, files: { path: string; file: Blob }[], modelBase: string): Promise<SplitOpened> {
  const local = new Map(files.map((f) => [f.path, f.file]));
  const rootFile = local.get('root.fathom');
  if (!rootFile) throw new Error(`${name} holds no root.fathom: it is not a split bundle's folder`);
  void getWorkspace().catch(() => undefined);
  const root = new Uint8Array(await rootFile.arrayBuffer());
  useStore(undefined);
  return install(`${name}/root.fathom`, root, { base: `${name}/`, fetching: new Map(), local, modelBase });
}

/** Opens a split bundle's root (named `path` in errors) in the engine, in place of any index, and where its items come from. */
function install(path: string, root: Uint8Array, source: NonNullable<typeof split>): Promise<SplitOpened> {
  return inQueue(async () => {
    const ws = await getWorkspace();
    const summary = ws.openSplit(path, root);
    newSession();
    split = { ...source, hasMeaning: ws.splitHasMeaning() };
    return { ...summary, meaning: split.hasMeaning ?? false };
  });
}

/**
 * Reads the open split bundle's static lane, once: the tokenizer from the
 * model folder (cached as the indexing engine's is); the lane's items come
 * with the questions that need them. `true`, or why meaning is unavailable.
 */
function splitMeaning(open: NonNullable<typeof split>): Promise<true | string> {
  open.meaning ??= (async (): Promise<true | string> => {
    if (!open.hasMeaning) return 'the split bundle carries no vectors';
    try {
      const words = await tokenizerBytes(open.modelBase);
      await inQueue(async () => (await getWorkspace()).readMeaning(words));
      return true;
    } catch (error) {
      return errorMessage(error);
    }
  })();
  return open.meaning;
}

function slotOf(need: SplitNeed): Slot | undefined {
  return need.offset == null || need.length == null ? undefined : { offset: need.offset, length: need.length };
}

/**
 * Answers a question over the split bundle: steps it in the engine's queue,
 * and fetches what each step needs outside it, all of a wave at once, until
 * it is ready. An item is fetched once however many questions wait for it,
 * and one that fails may be fetched again by the next question.
 */
async function stepped<T>(step: (ws: Workspace) => SplitStep<T>, waves = MAX_WAVES, allowed = Infinity): Promise<T> {
  const open = split;
  if (!open) throw new Error('no split bundle is open');
  // Counted from here only where the question has an allowance: a search pays no extra turn of the queue.
  const start = Number.isFinite(allowed) ? await inQueue(async () => fetchedBytes(await getWorkspace())) : 0;
  for (let wave = 0; wave <= waves; wave++) {
    const next = await inQueue(async () => {
      const ws = await getWorkspace();
      const next = step(ws);
      // Priced before it is fetched: a wave past what the question may fetch is asked for.
      if ('needs' in next && Number.isFinite(allowed)) {
        const cost = ws.splitCost(next.needs);
        if (fetchedBytes(ws) - start + cost > allowed) throw new Costly(cost, next.needs.length, allowed);
      }
      return next;
    });
    if ('ready' in next) {
      // From the second question on, a fetch worker fetches: it starts once the first has its answer, and never shares the CPU with the first.
      if (!open.local) fetches.warm();
      return next.ready;
    }
    if (wave === waves) break;
    const { alone, fromHost } = inRuns(open, next.needs);
    await Promise.all([eachLimited(alone, IN_FLIGHT, (need) => fetchItem(open, need)), fetchWave(open, fromHost)]);
  }
  throw new Error(`a question needed more than ${waves} waves of fetches`);
}

/** What the split bundle's reader has fetched, in bytes. */
function fetchedBytes(ws: Workspace): number {
  return ws.splitFetched()?.bytes ?? 0;
}

/** A Cypher query walks a wave for each hop of each pattern: more than a search's. */
const QUERY_WAVES = 24;

/** A question over a split bundle that would fetch past its allowance, said to the reader who may allow it. */
class Costly extends Error {
  constructor(readonly bytes: number, readonly items: number, allowed: number) {
    const mb = (n: number): string => `${(n / 1e6).toFixed(1)} MB`;
    super(`this would fetch at least ${mb(bytes)} more of the bundle (${items} items in its next step), past the ${mb(allowed)} a question may fetch without asking: name the nodes it starts from, or allow it (allowBytes)`);
  }
}

/**
 * Fetches an item and hands it to the reader, which checks it. From a
 * host: the copy kept offline where there is one, else the host's, kept
 * once the reader took it (a kept copy the reader refuses is dropped, and
 * the host's read). From a folder on this computer: its file.
 */
function fetchItem(open: NonNullable<typeof split>, need: SplitNeed): Promise<void> {
  let fetching = open.fetching.get(need.hash);
  if (!fetching) {
    const supply = (bytes: Uint8Array) =>
      inQueue(async () => {
        (await getWorkspace()).supply(need, bytes);
        return bytes;
      });
    const slot = slotOf(need);
    const fromFolder = async (local: Map<string, Blob>): Promise<Uint8Array> => {
      const file = local.get(need.path);
      if (!file) throw new Error(`${need.what} is missing from the folder: ${open.base}${need.path}`);
      const part = slot ? file.slice(slot.offset, slot.offset + slot.length) : file;
      return supply(new Uint8Array(await part.arrayBuffer()));
    };
    const fromHost = async (): Promise<Uint8Array> => {
      const url = new URL(need.path, open.base).href;
      const { bytes, fetched } = await keptOrFetched(url, need.what, Boolean(open.warm), supply, slot);
      // Kept in the background: the answer is not held up for it.
      if (fetched) void keep(keyOf(url, slot), bytes);
      return bytes;
    };
    // Once in, the reader holds it: this remembers that it came, not its bytes.
    fetching = (open.local ? fromFolder(open.local) : fromHost()).then(() => undefined);
    open.fetching.set(need.hash, fetching);
    // Kept once in, so never asked for again; a failure is forgotten, for the next question to try.
    fetching.catch(() => open.fetching.delete(need.hash));
  }
  return fetching;
}

/**
 * A step's needs, split into those fetched one by one (an item on its way
 * already, one a warm visit may have kept offline, a folder's, read as a
 * slice) and those a fetch worker reads from the host in one batch, in
 * runs: the packed items the engine put in one run (slots that follow one
 * another) are read with one Range request.
 */
function inRuns(open: NonNullable<typeof split>, needs: SplitNeed[]): { alone: SplitNeed[]; fromHost: SplitNeed[][] } {
  const alone: SplitNeed[] = [];
  const runs = new Map<number, SplitNeed[]>();
  const loose: SplitNeed[][] = [];
  for (const need of needs) {
    if (open.local || open.warm || open.fetching.has(need.hash)) alone.push(need);
    else if (need.run == null) loose.push([need]);
    else runs.set(need.run, [...(runs.get(need.run) ?? []), need]);
  }
  return { alone, fromHost: [...loose, ...runs.values()] };
}

/**
 * Fetches a wave's items from the host by a fetch worker, in one batch
 * (each run with one request), then hands each item to the reader and has
 * those it took kept, in one batch too. The engine's worker gets one
 * message for the wave, not one for each item: each message, like each
 * request, leaves objects that are collected late. An item the reader
 * refuses, or the host fails, fails the wave once all are handed; the
 * next question fetches it again.
 */
async function fetchWave(open: NonNullable<typeof split>, runs: SplitNeed[][]): Promise<void> {
  if (runs.length === 0) return;
  const spans = runs.map((run): Slot | undefined => {
    const slots = run.map(slotOf);
    if (slots.some((slot) => slot === undefined)) return undefined;
    const from = Math.min(...slots.map((slot) => (slot as Slot).offset));
    return { offset: from, length: Math.max(...slots.map((slot) => (slot as Slot).offset + (slot as Slot).length)) - from };
  });
  const what = (run: SplitNeed[]) => (run.length === 1 ? (run[0]?.what ?? 'an item') : `${run.length} packed items (${run[0]?.what} to ${run.at(-1)?.what})`);
  const urls = runs.map((run) => new URL(run[0]?.path ?? '', open.base).href);
  const failures: unknown[] = [];
  const took: Kept[] = [];
  const supplied: Promise<void>[] = [];
  // Each run is handed to the reader as it comes (a fetch worker's, all at once).
  const hand = (at: number, result: Uint8Array | Error) =>
    supplied.push(
      inQueue(async () => {
        if (result instanceof Error) {
          failures.push(result);
          return;
        }
        const ws = await getWorkspace();
        const span = spans[at];
        for (const need of runs[at] as SplitNeed[]) {
          const slot = slotOf(need);
          const mine = span && slot ? result.slice(slot.offset - span.offset, slot.offset - span.offset + slot.length) : result;
          try {
            ws.supply(need, mine);
            took.push({ url: keyOf(urls[at] as string, slot), bytes: mine });
          } catch (error) {
            failures.push(error);
          }
        }
      }),
    );
  const read = fetches.fetchMany(runs.map((run, at) => ({ url: urls[at] as string, what: what(run), slot: spans[at] })), hand).then(async () => {
    await Promise.all(supplied);
    if (keptName !== undefined && took.length > 0) void fetches.keepMany(keptName, took).catch(() => undefined);
    if (failures.length > 0) throw failures[0];
  });
  // Once in, the reader holds it: this remembers that it came, not its bytes.
  const came = read.then(() => undefined);
  const needs = runs.flat();
  for (const need of needs) open.fetching.set(need.hash, came);
  // A failure is forgotten, for the next question to try; what the reader took it holds, and does not ask for again.
  came.catch(() => needs.forEach((need) => open.fetching.get(need.hash) === came && open.fetching.delete(need.hash)));
  await came;
}

// ---- Split bundles kept offline -------------------------------------------------

/**
 * Where a split bundle's items are kept between visits, by URL: what was
 * fetched, and all of it once the page asks (`keepOffline`). Items are
 * named by their contents, so a kept copy is read before the host's; the
 * root is the host's, and the kept one only when the host cannot be
 * reached. Each build of a bundle is kept in a store of its own, named
 * `${KEPT} <its root's digest> <the bundle's folder>`: a new build's root
 * drops the older builds' stores, so what a site replaced is not kept
 * forever. Absent where the page may keep nothing (not a secure context).
 */
const KEPT = 'fathom-split-v2';
/** The store of the open bundle's build. */
let keptStore: Promise<Cache | undefined> = Promise.resolve(undefined);
/** Its name, for the fetch workers, which keep what the reader took. */
let keptName: string | undefined;

function kept(): Promise<Cache | undefined> {
  return keptStore;
}

/** Keeps what is fetched from here on in the store named `name`, or nowhere. */
function useStore(name: string | undefined): void {
  keptName = name;
  keptStore = name === undefined ? Promise.resolve(undefined) : openStore(name).catch(() => undefined);
}

/** The stores of the builds of the bundle at `base`, oldest first. */
async function buildStores(base: string): Promise<string[]> {
  if (typeof caches === 'undefined') return [];
  const names = await caches.keys().catch(() => [] as string[]);
  return names.filter((name) => name.startsWith(`${KEPT} `) && name.endsWith(` ${base}`));
}

/** The first 8 bytes of a root's SHA-256, in hex: its build's name. */
async function buildOf(root: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', root as BufferSource));
  return Array.from(digest.subarray(0, 8), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Where a packed item fetched by itself is kept: its pack's URL with its range. */
function keyOf(url: string, slot: Slot | undefined): string {
  return slot ? `${url}?bytes=${slot.offset}-${slot.offset + slot.length - 1}` : url;
}

/** A kept copy of a file, or of a packed item: kept by itself, or its slot of its pack kept whole (offline). */
async function keptCopy(url: string, slot?: Slot): Promise<Uint8Array | undefined> {
  const store = await kept();
  const hit = await store?.match(keyOf(url, slot)).catch(() => undefined);
  if (hit) return new Uint8Array(await hit.arrayBuffer());
  const pack = slot ? await store?.match(url).catch(() => undefined) : undefined;
  if (!pack || !slot) return undefined;
  return new Uint8Array(await (await pack.blob()).slice(slot.offset, slot.offset + slot.length).arrayBuffer());
}

/**
 * Keeps a copy, by a fetch worker (what writing it leaves behind goes with
 * that worker); a store that is full or gone keeps nothing, and the answer
 * is not held up for it.
 */
async function keep(url: string, bytes: Uint8Array): Promise<void> {
  if (keptName !== undefined) await fetches.keepMany(keptName, [{ url, bytes }]).catch(() => undefined);
}

async function forget(url: string): Promise<void> {
  await (await kept())?.delete(url).catch(() => undefined);
}

/**
 * An item's bytes as `take` accepts them (it checks them): the kept copy
 * where `look` and there is one (refused, it is dropped), else the host's.
 * `fetched`: they came from the host, for the caller to keep.
 */
async function keptOrFetched<T>(
  url: string,
  what: string,
  look: boolean,
  take: (bytes: Uint8Array) => Promise<T>,
  slot?: Slot,
): Promise<{ value: T; bytes: Uint8Array; fetched: boolean }> {
  const kept = look ? await keptCopy(url, slot) : undefined;
  if (kept) {
    try {
      return { value: await take(kept), bytes: kept, fetched: false };
    } catch {
      void forget(keyOf(url, slot));
    }
  }
  const bytes = await fetches.fetch(url, what, slot);
  return { value: await take(bytes), bytes, fetched: true };
}

/**
 * A split bundle's root: the host's (and kept), or the kept one where the
 * host cannot be reached. `warm`: the one kept is this one, so its items
 * may be kept too; a first visit (or a new build) looks none up.
 */
async function fetchRoot(url: string, base: string): Promise<{ root: Uint8Array; warm: boolean }> {
  const stores = buildStores(base);
  // The one store every bundle shared before builds had their own.
  if (typeof caches !== 'undefined') void caches.delete('fathom-split-v1').catch(() => undefined);
  let root: Uint8Array;
  try {
    // Checked with the host each time (`no-cache`, which a service worker reads as network first): a new build replaces it.
    root = await fetchChecked(url, "the split bundle's root", { cache: 'no-cache' });
  } catch (error) {
    // The host cannot be reached: the build kept last.
    const last = error instanceof Unreachable ? (await stores).at(-1) : undefined;
    const store = last ? await caches.open(last).catch(() => undefined) : undefined;
    const copy = await store?.match(url).catch(() => undefined);
    if (!store || !copy) throw error;
    useStore(last);
    return { root: new Uint8Array(await copy.arrayBuffer()), warm: true };
  }
  if (typeof caches === 'undefined' || typeof crypto?.subtle === 'undefined') {
    useStore(undefined);
    return { root, warm: false };
  }
  const name = `${KEPT} ${await buildOf(root)} ${base}`;
  const known = await stores;
  useStore(name);
  // Older builds of this bundle: the site serves them no more.
  await Promise.all(known.filter((other) => other !== name).map((other) => caches.delete(other).catch(() => false)));
  const warm = known.includes(name) && (await (await keptStore)?.match(url).catch(() => undefined)) !== undefined;
  if (!warm) void keep(url, root);
  return { root, warm };
}

/**
 * Fetches every item of the open split bundle that is not kept yet, and
 * keeps it: then every question is answered with the network off. Items
 * are checked before they are kept and none is read into the engine (a
 * large bundle does not fit in a tab). The files' items are named by the
 * node pages, so they follow those.
 */
async function keepOffline(onProgress: (progress: Progress) => void): Promise<KeptOffline> {
  const open = split;
  if (!open) throw new Error('no split bundle is open');
  if (open.local) throw new Error('this split bundle is a folder on this computer: it is offline already');
  const store = await kept();
  if (!store) throw new Error('this page cannot keep anything offline: the browser keeps nothing for a page that is not served securely (https or localhost)');
  // From here questions look up what is kept: this keeps it all.
  open.warm = true;
  const every = await inQueue(async () => (await getWorkspace()).splitEveryItem());
  const files = new Map<string, SplitNeed>();
  const done = { items: 0, bytes: 0, fetched: 0, fetchedBytes: 0 };
  let total = every.length;
  const one = async (need: SplitNeed): Promise<void> => {
    const url = new URL(need.path, open.base).href;
    const check = (bytes: Uint8Array) =>
      inQueue(async () => {
        const ws = await getWorkspace();
        if (need.what.startsWith('node page')) return ws.splitFilesNamed(need, bytes);
        ws.splitCheck(need, bytes);
        return [];
      });
    const { value: named, bytes, fetched: fresh } = await keptOrFetched(url, need.what, true, check);
    for (const file of named) {
      if (!files.has(file.hash)) {
        files.set(file.hash, file);
        total += 1;
      }
    }
    if (fresh) {
      await keep(url, bytes);
      done.fetched += 1;
      done.fetchedBytes += bytes.length;
    }
    done.items += 1;
    done.bytes += bytes.length;
    onProgress({ stage: 'read', done: done.items, total });
  };
  await eachLimited(every, IN_FLIGHT, one);
  await eachLimited([...files.values()], IN_FLIGHT, one);
  return { items: done.items, bytes: done.bytes, fetched: done.fetched, fetchedBytes: done.fetchedBytes };
}

/** What a split bundle answers: searches, files and their colours, a symbol, its callers, callees, impact and references, Cypher. */
type SplitRequest =
  | Extract<WorkerRequest, { op: 'search' | 'file' | 'symbol' | 'callers' | 'callees' | 'impact' | 'query' }>
  | Extract<WorkerRequest, { op: 'call' }>;

const SPLIT_OPS: ReadonlySet<WorkerRequest['op']> = new Set(['search', 'file', 'symbol', 'callers', 'callees', 'impact', 'query']);

/** What a question over a split bundle (a Cypher query, a walk) fetches before it asks: the engine's allowance. */
async function allowance(): Promise<number> {
  return (await getWorkspace()).splitAllowance();
}

function splitAnswers(request: WorkerRequest): boolean {
  return SPLIT_OPS.has(request.op) || (request.op === 'call' && (request.method === 'highlight' || request.method === 'references'));
}

/** Whether a split bundle is open, once any opening under way is done. */
async function readsSplit(): Promise<boolean> {
  await opening.catch(() => undefined);
  return split !== undefined;
}

/** A search, a file or its colours over the split bundle. */
async function answerSplit(request: SplitRequest): Promise<void> {
  const { id } = request;
  try {
    if (request.op === 'search') {
      const { query } = request;
      // Meaning where the bundle carries it and the tokenizer came; else words, saying why.
      const open = split;
      const meaning = open && request.options.mode !== 'lexical' ? await splitMeaning(open) : true;
      const options = meaning === true ? request.options : { ...request.options, mode: 'lexical' as const };
      const results = await stepped((ws) => ws.searchStep(query, options));
      const note = meaning === true ? results.note : `meaning is unavailable (${meaning}); ran as lexical`;
      const reading: Reading = { state: 'none', detail: null };
      scope.postMessage({ id, type: 'result', op: 'search', value: { ...results, note, reading } });
    } else if (request.op === 'file') {
      const text = await stepped((ws) => ws.fileStep(request.path));
      scope.postMessage({ id, type: 'result', op: 'file', value: text ?? undefined });
    } else if (request.op === 'symbol') {
      const context = await stepped((ws) => ws.symbolStep(request.symbol));
      scope.postMessage({ id, type: 'result', op: 'symbol', value: context });
    } else if (request.op === 'query') {
      // A query matching nodes by no name reads the whole graph: each wave is priced, as a walk's.
      const { text, params } = request;
      const rows = await stepped((ws) => ws.queryStep(text, params), QUERY_WAVES, request.allowBytes ?? (await allowance()));
      scope.postMessage({ id, type: 'result', op: 'query', value: rows });
    } else if (request.op === 'callers' || request.op === 'callees' || request.op === 'impact') {
      // A hub's walk reads most of the graph: a wave past the allowance is asked for first.
      const { op, symbol, depth } = request;
      const walk = { callers: 'callersStep', callees: 'calleesStep', impact: 'impactStep' } as const;
      const reached = await stepped((ws) => ws[walk[op]](symbol, depth), MAX_WAVES, request.allowBytes ?? (await allowance()));
      scope.postMessage({ id, type: 'result', op, value: reached });
    } else if (request.method === 'references') {
      // The files a reference is in are read for its line: a name used everywhere asks first, as a hub's walk does.
      const symbol = request.args[0] as string;
      const references = await stepped((ws) => ws.referencesStep(symbol), MAX_WAVES, await allowance());
      scope.postMessage({ id, type: 'result', op: 'call', value: references });
    } else {
      // The viewer has no grammars: a split bundle stores each file's colours.
      const path = request.args[0] as string;
      const colours = await stepped((ws) => ws.highlightStep(path));
      scope.postMessage({ id, type: 'result', op: 'call', value: colours ?? undefined });
    }
  } catch (error) {
    const asks = error instanceof Costly ? { asks: { bytes: error.bytes, items: error.items } } : {};
    scope.postMessage({ id, type: 'error', message: errorMessage(error), crashed: error instanceof WebAssembly.RuntimeError, ...asks });
  }
}

/** A new index replaced the last: meaning starts over for it, and no split bundle is open (`openSplit` opens one after). */
function newSession(): void {
  session += 1;
  split = undefined;
  meaning = undefined;
  readings.clear();
  reading?.controller.abort('another index replaced this one');
}

/**
 * The meaning a feature card or a change's tests read, planned in the queue
 * (the index as it is then) and awaited outside it: a question waiting for
 * MiniLM holds up no other request.
 */
function questionMeaning(request: Extract<WorkerRequest, { op: 'call' }>): Promise<MeaningArgs> | undefined {
  if (request.method === 'featureCard') {
    return inQueue(async () => planReading(await getWorkspace(), request.args[0] as string, {})).then(argsOf);
  }
  if (request.method === 'testsFor') {
    const text = (request.args[0] as Change).text ?? '';
    return inQueue(async () => planReading(await getWorkspace(), text, {}, true)).then(argsOf);
  }
  return undefined;
}

/** What a request needs before it runs that is no engine call (a fetch, MiniLM's reading): got outside the queue. */
type Prelude = { meaning: MeaningArgs } | { table: [Uint8Array, Uint8Array] | Error | null } | undefined;

async function handle(request: WorkerRequest, prelude: Prelude): Promise<WorkerReply> {
  if (VIEWER && (request.op === 'indexZip' || request.op === 'indexFiles' || request.op === 'prepare')) {
    throw new Error('this page loaded the viewer, which reads split bundles and parses nothing: it cannot index a repository');
  }
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
      return { id, type: 'result', op: 'plan', value: (bindings as Bindings).planZip(request.name, new Uint8Array(request.bytes)) };
    case 'openSplit':
    case 'openSplitFiles':
    case 'keepOffline':
      // Answered outside the queue: the root, or the items, are fetched there.
      throw new Error(`${request.op} is not queued`);
    case 'search': {
      const refine = (refinement: Refinement) => scope.postMessage({ id, type: 'refined', refinement });
      return { id, type: 'result', op: 'search', value: search(ws, request.query, request.options, refine) };
    }
    case 'startEmbedding': {
      const table = prelude && 'table' in prelude ? prelude.table : null;
      return { id, type: 'result', op: 'startEmbedding', value: startMeaning(ws, request.options, request.modelBase, table) };
    }
    case 'embedTexts': {
      const loaded = await loadPool(request.backend, request.modelBase, request.workers);
      if (probe && probe !== loaded && probe !== minilm) dropPool(probe);
      if (loaded !== minilm) probe = loaded;
      return { id, type: 'result', op: 'embedTexts', value: await loaded.embed(request.texts) };
    }
    case 'memory': {
      const heap = (bindings as Bindings).heapStats() as HeapStats;
      const value = {
        heapBytes: heap.linear_bytes, liveBytes: heap.live_bytes, peakLiveBytes: heap.peak_live_bytes, parse: lastParse,
        minilmHeapBytes: (minilm ?? probe)?.heapBytes ?? [],
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
      const meaningArgs = prelude && 'meaning' in prelude ? prelude.meaning : [];
      // The questions that read meaning get what MiniLM read of them, where it could.
      if (request.method === 'featureCard') {
        const [vector, chunks, vectors] = meaningArgs;
        return { id, type: 'result', op: 'call', value: ws.featureCard(args[0] as string, args[1] as number, vector, chunks, vectors) };
      }
      if (request.method === 'testsFor') args.push(meaningArgs[0]);
      const value = await method.apply(ws, args);
      if (request.method === 'importBundle') {
        newSession();
      }
      return { id, type: 'result', op: 'call', value };
    }
  }
}

/**
 * Engine calls run strictly one after another, even while wasm initialises;
 * what a request awaits from elsewhere (a fetch, MiniLM) it awaits before it
 * joins the queue, so no other request waits for it.
 */
let queue: Promise<void> = Promise.resolve();

/** Runs `task` once every engine call queued before it has run. */
function inQueue<T>(task: () => Promise<T>): Promise<T> {
  const run = queue.then(task);
  queue = run.then(
    () => undefined,
    () => undefined,
  );
  return run;
}

function enqueue(task: () => Promise<void>): void {
  void inQueue(task).catch((error: unknown) => console.warn(`a queued task failed: ${errorMessage(error)}`));
}

/** Answers a request, or says why it failed. */
async function answer(request: WorkerRequest, prelude: Prelude): Promise<void> {
  try {
    scope.postMessage(await handle(request, prelude));
  } catch (error) {
    // A trap (a Rust panic) leaves the instance's memory in whatever state
    // it stopped in: the client replaces this worker.
    const crashed = error instanceof WebAssembly.RuntimeError;
    // The engine's panic hook leaves the panic's message here.
    const panic = (scope as unknown as { fathomPanic?: string }).fathomPanic;
    const message = crashed && panic ? panic.replace(/\s+/g, ' ') : errorMessage(error);
    scope.postMessage({ id: request.id, type: 'error', message, crashed });
  }
}

/** Answers a request with what `work` settles to, outside the engine's queue (it fetches). */
function answerOutside<K extends 'openSplit' | 'openSplitFiles' | 'keepOffline'>(id: number, op: K, work: Promise<OpResults[K]>): void {
  work.then(
    (value) => scope.postMessage({ id, type: 'result', op, value } as WorkerReply),
    (error: unknown) => scope.postMessage({ id, type: 'error', message: errorMessage(error) }),
  );
}

scope.addEventListener('message', (event) => {
  const request = event.data as WorkerRequest;
  if (request.op === 'openSplit' || request.op === 'openSplitFiles') {
    const opened =
      request.op === 'openSplit' ? openSplit(request.base, request.modelBase) : openSplitFiles(request.name, request.files, request.modelBase);
    opening = opened;
    answerOutside(request.id, request.op, opened);
    return;
  }
  if (request.op === 'keepOffline') {
    const onProgress = throttledProgress((progress) => scope.postMessage({ id: request.id, type: 'progress', progress }));
    answerOutside(request.id, 'keepOffline', opening.then(() => keepOffline(onProgress)));
    return;
  }
  if (splitAnswers(request)) {
    void readsSplit().then((yes) => (yes ? answerSplit(request as SplitRequest) : enqueue(() => answer(request, undefined))));
    return;
  }
  const before: Promise<Prelude> | undefined =
    request.op === 'startEmbedding'
      ? staticBytesIfNeeded(request.modelBase).then((table) => ({ table }))
      : request.op === 'call'
        ? questionMeaning(request)?.then((meaning) => ({ meaning }), () => ({ meaning: [] }))
        : undefined;
  if (!before) enqueue(() => answer(request, undefined));
  else void before.then((prelude) => enqueue(() => answer(request, prelude)));
});

// The engine compiles as soon as the page starts its worker, not at the first
// request: a person takes longer to pick an archive than compiling takes. A
// failure is reported by the first request, which awaits the same promise.
getWorkspace().catch(() => undefined);
