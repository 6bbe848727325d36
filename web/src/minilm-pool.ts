// MiniLM's workers (web/src/minilm-worker.ts), started by the engine's worker
// when MiniLM first runs. On the CPU the wasm module runs on one thread, so
// one instance per core, each with its own weights, is what makes the CPU
// fast: a batch is cut into one part per worker, as the CLI cuts it into one
// part per core, and the parts are put back in order. On WebGPU one worker
// drives the GPU. The engine's worker itself stays free for searches while
// the workers embed, and a question's own work goes before any bulk
// embedding's (MiniLmPool's queue).
import type { Backend, ModelInfo } from './protocol';

export type MiniLmRequest =
  | { id: number; op: 'load'; module: WebAssembly.Module; weights: ArrayBuffer; tokenizer: ArrayBuffer; backend: Backend }
  | { id: number; op: 'embed'; texts: string[]; query: boolean };

export type MiniLmReply =
  | { id: number; op: 'load'; info: ModelInfo; heapBytes: number }
  | { id: number; op: 'embed'; vectors: Float32Array; heapBytes: number }
  | { id: number; op: 'error'; message: string };

/**
 * MiniLM workers to run on the CPU: one per core, at most 4 (each holds the
 * weights, about 100 MB with its working memory), and at most 2 where the
 * browser reports 4 GB of memory or less.
 */
export function cpuWorkers(): number {
  const cores = Math.max(1, Math.min(navigator.hardwareConcurrency || 2, 4));
  const memory = (navigator as unknown as { deviceMemory?: number }).deviceMemory;
  return memory !== undefined && memory <= 4 ? Math.min(cores, 2) : cores;
}

/** Whether a loaded model runs on the CPU (its backend reads "cpu (burn flex)"). */
export function onCpu(info: ModelInfo): boolean {
  return info.backend.startsWith('cpu');
}

/**
 * Cuts `texts` (sorted by length, as the engine hands them out) into at most
 * `parts` contiguous runs of about equal characters, each run at least one
 * text: the end index of each run.
 */
export function cut(texts: readonly string[], parts: number): number[] {
  const n = Math.min(parts, texts.length);
  const total = texts.reduce((sum, t) => sum + t.length + 1, 0);
  const ends: number[] = [];
  let sum = 0;
  for (let i = 0; i < texts.length && ends.length < n - 1; i += 1) {
    sum += (texts[i] as string).length + 1;
    // Cut once this run has its share, or where what is left is one text for each run still to come.
    const left = texts.length - (i + 1);
    const runs = n - 1 - ends.length;
    if ((sum >= (total * (ends.length + 1)) / n && left >= runs) || left === runs) ends.push(i + 1);
  }
  ends.push(texts.length);
  return ends;
}

/** The bytes of `view` as an ArrayBuffer of their own. */
function whole(view: Uint8Array): ArrayBuffer {
  const buffer = view.buffer as ArrayBuffer;
  return view.byteOffset === 0 && view.byteLength === buffer.byteLength ? buffer : (view.slice().buffer as ArrayBuffer);
}

/** Which queue a piece of work waits in: a question's before any bulk embedding. */
export type Lane = 'question' | 'bulk';

/** Why a piece of work was dropped before it ran: a newer question, a deadline (`late`), a replaced index. */
export class Cancelled extends Error {
  readonly late: boolean;

  constructor(reason: string, late = false) {
    super(reason);
    this.name = 'Cancelled';
    this.late = late;
  }

  /** What an aborted signal says: its reason where that is a Cancelled, else one carrying the reason's words. */
  static of(signal: AbortSignal): Cancelled {
    return signal.reason instanceof Cancelled ? signal.reason : new Cancelled(String(signal.reason ?? 'cancelled'));
  }
}

export interface EmbedOptions {
  /** Which queue the work waits in (bulk by default). */
  lane?: Lane;
  /** Drops the pieces not yet started, and rejects with {@link Cancelled}. */
  signal?: AbortSignal;
  /** Hears each piece as it ends: the places of its texts in the call, and their vectors. */
  onPiece?: ((at: number[], vectors: Float32Array) => void) | undefined;
  /** Told the longest a piece took on its worker, waits in the queue left out: the call's time on an idle pool. */
  timing?: { spanMs: number } | undefined;
}

/** How long a timed pace is trusted to predict a question's reading; past it, a reading is tried and timed again. */
const PACE_TRUSTED_MS = 30_000;

/** The most texts one piece of a question holds: small pieces let a newer question cancel the rest of an older one. */
const QUESTION_PIECE = 8;

interface Slot {
  worker: Worker;
  /** Requests sent and not yet answered, by id. */
  pending: Map<number, { resolve(reply: MiniLmReply): void; reject(error: Error): void }>;
  /** Why the worker died, once it has: it takes no more work. */
  dead: string | null;
  /** Its linear memory as last reported: wasm memory never shrinks, so its peak. */
  heapBytes: number;
  /** The piece it is embedding now: a worker is given one piece at a time. */
  running: Piece | null;
}

/** One call's texts, embedded in pieces; resolves once every piece is back. */
interface Job {
  lane: Lane;
  onPiece: EmbedOptions['onPiece'];
  timing: EmbedOptions['timing'];
  /** The vectors of each text, by the text's place in the call. */
  vectors: (Float32Array | undefined)[];
  left: number;
  settled: boolean;
  resolve(vectors: Float32Array[]): void;
  reject(error: Error): void;
}

/** Part of a job: the texts one worker embeds in one request. */
interface Piece {
  job: Job;
  texts: string[];
  /** Each text's place in the job. */
  at: number[];
  query: boolean;
  /** Characters in the piece, MiniLM reading at most the first 1,024 of each (for the pool's rate). */
  chars: number;
}

/** About as many characters as MiniLM reads of one text (its 256 word pieces). */
const READ_CHARS = 1_024;

function charsOf(texts: readonly string[]): number {
  return texts.reduce((sum, t) => sum + Math.min(t.length, READ_CHARS) + 16, 0);
}

function spawn(): Slot {
  const slot: Slot = {
    worker: new Worker(new URL('./minilm-worker.ts', import.meta.url), { type: 'module' }),
    pending: new Map(),
    dead: null,
    heapBytes: 0,
    running: null,
  };
  slot.worker.addEventListener('message', (event: MessageEvent<MiniLmReply>) => {
    const waiter = slot.pending.get(event.data.id);
    slot.pending.delete(event.data.id);
    waiter?.resolve(event.data);
  });
  slot.worker.addEventListener('error', (event: ErrorEvent) => {
    // The worker is gone (its script failed, or its memory ran out): what it had is lost.
    slot.dead = event.message || 'a MiniLM worker stopped';
    for (const waiter of slot.pending.values()) waiter.reject(new Error(slot.dead));
    slot.pending.clear();
    slot.worker.terminate();
  });
  return slot;
}

/**
 * MiniLM's workers, and the one queue they take work from. Each worker is
 * given one piece of work at a time, and an idle worker takes the oldest
 * question's next piece before any bulk embedding's: a question waits at most
 * for the pieces already running, never behind a repository's worth of
 * chunks. A question's work is cut into small pieces, so that cancelling it
 * (a newer question, a deadline) drops what has not started.
 */
export class MiniLmPool {
  readonly #slots: Slot[];
  readonly #info: ModelInfo;
  #next = 1;
  readonly #queue: Piece[] = [];
  /** Milliseconds per character one worker took, over the pieces it embedded (null until one is timed). */
  #msPerChar: number | null = null;
  /** When a piece was last timed. */
  #timedAt = 0;

  private constructor(slots: Slot[], info: ModelInfo) {
    this.#slots = slots;
    this.#info = info;
  }

  /**
   * Starts MiniLM on `backend` in one worker, and where it runs on the CPU
   * in `cpu` workers in all. A worker beyond the first that fails to load is
   * stopped and the pool runs on without it.
   */
  static async start(module: WebAssembly.Module, weights: Uint8Array, tokenizer: Uint8Array, backend: Backend, cpu: number): Promise<MiniLmPool> {
    const first = spawn();
    const pool = new MiniLmPool([first], await MiniLmPool.#load(first, module, weights, tokenizer, backend).catch((error: unknown) => {
      first.worker.terminate();
      throw error;
    }));
    if (onCpu(pool.#info) && cpu > 1) {
      const more = Array.from({ length: cpu - 1 }, spawn);
      const loaded = await Promise.allSettled(more.map((slot) => MiniLmPool.#load(slot, module, weights, tokenizer, 'cpu')));
      more.forEach((slot, i) => {
        if (loaded[i]?.status === 'fulfilled') pool.#slots.push(slot);
        else slot.worker.terminate();
      });
    }
    return pool;
  }

  static async #load(slot: Slot, module: WebAssembly.Module, weights: Uint8Array, tokenizer: Uint8Array, backend: Backend): Promise<ModelInfo> {
    // Each worker gets its own copy of the bytes (structured clone). Id 0 is
    // the load's; embedding requests count from 1.
    const reply = await MiniLmPool.#send(slot, { id: 0, op: 'load', module, weights: whole(weights), tokenizer: whole(tokenizer), backend });
    if (reply.op !== 'load') throw new Error(reply.op === 'error' ? reply.message : 'unexpected reply from a MiniLM worker');
    slot.heapBytes = reply.heapBytes;
    return reply.info;
  }

  static #send(slot: Slot, request: MiniLmRequest): Promise<MiniLmReply> {
    if (slot.dead) return Promise.reject(new Error(slot.dead));
    return new Promise((resolve, reject) => {
      slot.pending.set(request.id, { resolve, reject });
      slot.worker.postMessage(request);
    });
  }

  /** The model as loaded by the first worker. */
  get info(): ModelInfo {
    return this.#info;
  }

  /** The workers still running. */
  get size(): number {
    return this.#live().length;
  }

  /** Each running worker's peak linear memory, in bytes. */
  get heapBytes(): number[] {
    return this.#live().map((s) => s.heapBytes);
  }

  #live(): Slot[] {
    return this.#slots.filter((s) => !s.dead);
  }

  /**
   * About how long embedding these texts would take on an idle pool, from
   * the pieces timed lately; null where none was timed in the last 30 s (a
   * pace timed while another lane loaded, or before the machine was busy,
   * is not trusted for long).
   */
  estimateMs(texts: readonly string[]): number | null {
    if (this.#msPerChar === null || performance.now() - this.#timedAt > PACE_TRUSTED_MS) return null;
    const workers = Math.max(1, Math.min(this.size, texts.length));
    return (charsOf(texts) * this.#msPerChar) / workers;
  }

  /**
   * Embeds `texts`: `texts.length` vectors of `dim` floats, end to end.
   * Bulk work is cut into one part per worker; a question's into parts of
   * at most a few texts, each of similar length. `signal` drops the parts
   * not yet started, and rejects with {@link Cancelled}.
   */
  embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array> {
    return this.#run(texts, false, options.lane ?? 'bulk', options).then((vectors) => this.#joined(vectors));
  }

  /** A query's vector (a long one read in segments), ahead of every other piece of work. */
  embedQuery(text: string, signal?: AbortSignal): Promise<Float32Array> {
    return this.#run([text], true, 'question', signal ? { signal } : {}).then((vectors) => vectors[0] as Float32Array);
  }

  #joined(vectors: Float32Array[]): Float32Array {
    const out = new Float32Array(vectors.length * this.#info.dim);
    vectors.forEach((v, i) => out.set(v, i * this.#info.dim));
    return out;
  }

  #run(texts: string[], query: boolean, lane: Lane, options: EmbedOptions): Promise<Float32Array[]> {
    const { signal } = options;
    const live = this.#live();
    if (live.length === 0) return Promise.reject(new Error('every MiniLM worker has stopped'));
    if (signal?.aborted) return Promise.reject(Cancelled.of(signal));
    if (texts.length === 0) return Promise.resolve([]);
    return new Promise<Float32Array[]>((resolve, reject) => {
      const job: Job = {
        lane, vectors: new Array(texts.length), left: texts.length, settled: false, resolve, reject, onPiece: options.onPiece, timing: options.timing,
      };
      const pieces = lane === 'bulk' ? this.#bulkPieces(job, texts, live.length) : this.#questionPieces(job, texts, query);
      // A query's own vector goes first; a question's candidates after the
      // questions already waiting; bulk work last.
      if (query) this.#queue.unshift(...pieces);
      else if (lane === 'question') {
        const firstBulk = this.#queue.findIndex((p) => p.job.lane === 'bulk');
        this.#queue.splice(firstBulk < 0 ? this.#queue.length : firstBulk, 0, ...pieces);
      } else this.#queue.push(...pieces);
      signal?.addEventListener('abort', () => this.#cancel(job, Cancelled.of(signal)), { once: true });
      this.#pump();
    });
  }

  /** Bulk texts (sorted by length, as the engine hands them out) in one contiguous part per worker. */
  #bulkPieces(job: Job, texts: string[], workers: number): Piece[] {
    let start = 0;
    return cut(texts, workers).map((end) => {
      const part = texts.slice(start, end);
      const at = Array.from({ length: part.length }, (_, i) => start + i);
      start = end;
      return { job, texts: part, at, query: false, chars: charsOf(part) };
    });
  }

  /** A question's texts, by length (a batch pads to its longest), in parts of at most {@link QUESTION_PIECE}. */
  #questionPieces(job: Job, texts: string[], query: boolean): Piece[] {
    const order = texts.map((_, i) => i).sort((a, b) => (texts[a] as string).length - (texts[b] as string).length);
    const pieces: Piece[] = [];
    for (let i = 0; i < order.length; i += QUESTION_PIECE) {
      const at = order.slice(i, i + QUESTION_PIECE);
      const part = at.map((j) => texts[j] as string);
      pieces.push({ job, texts: part, at, query, chars: charsOf(part) });
    }
    return pieces;
  }

  /** Gives each idle worker the next piece: questions' first. */
  #pump(): void {
    const live = this.#live();
    if (live.length === 0) {
      for (const piece of this.#queue.splice(0)) this.#cancel(piece.job, new Error('every MiniLM worker has stopped'));
      return;
    }
    for (const slot of live) {
      if (slot.running) continue;
      const piece = this.#queue.shift();
      if (!piece) return;
      slot.running = piece;
      void this.#embedPiece(slot, piece);
    }
  }

  async #embedPiece(slot: Slot, piece: Piece): Promise<void> {
    const id = this.#next;
    this.#next += 1;
    const started = performance.now();
    try {
      const reply = await MiniLmPool.#send(slot, { id, op: 'embed', texts: piece.texts, query: piece.query });
      if (reply.op === 'error') throw new Error(reply.message);
      if (reply.op !== 'embed') throw new Error('unexpected reply from a MiniLM worker');
      slot.heapBytes = Math.max(slot.heapBytes, reply.heapBytes);
      const elapsed = performance.now() - started;
      const perChar = elapsed / piece.chars;
      this.#msPerChar = this.#msPerChar === null ? perChar : 0.7 * this.#msPerChar + 0.3 * perChar;
      this.#timedAt = performance.now();
      const dim = this.#info.dim;
      const { job } = piece;
      if (job.timing) job.timing.spanMs = Math.max(job.timing.spanMs, elapsed);
      piece.at.forEach((place, i) => {
        job.vectors[place] = reply.vectors.subarray(i * dim, (i + 1) * dim);
      });
      if (!job.settled) job.onPiece?.(piece.at, reply.vectors);
      job.left -= piece.at.length;
      if (job.left === 0 && !job.settled) {
        job.settled = true;
        job.resolve(job.vectors as Float32Array[]);
      }
    } catch (error) {
      this.#cancel(piece.job, error instanceof Error ? error : new Error(String(error)));
    } finally {
      slot.running = null;
      this.#pump();
    }
  }

  /** Drops a job's pieces not yet started and rejects it; pieces running finish, unheard. */
  #cancel(job: Job, error: Error): void {
    if (job.settled) return;
    job.settled = true;
    for (let i = this.#queue.length - 1; i >= 0; i -= 1) if (this.#queue[i]?.job === job) this.#queue.splice(i, 1);
    job.reject(error);
  }

  /** Stops every worker; what they had in hand is dropped. */
  terminate(): void {
    for (const piece of this.#queue.splice(0)) this.#cancel(piece.job, new Cancelled('MiniLM was stopped'));
    for (const slot of this.#slots) {
      slot.dead ??= 'MiniLM was stopped';
      for (const waiter of slot.pending.values()) waiter.reject(new Error(slot.dead));
      slot.pending.clear();
      slot.worker.terminate();
    }
  }
}
