// MiniLM's workers (web/src/minilm-worker.ts), started by the engine's worker
// when MiniLM first runs. On the CPU the wasm module runs on one thread, so
// one instance per core, each with its own weights, is what makes the CPU
// fast: a batch is cut into one part per worker, as the CLI cuts it into one
// part per core, and the parts are put back in order. On WebGPU one worker
// drives the GPU. The engine's worker itself stays free for searches while
// the workers embed.
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

interface Slot {
  worker: Worker;
  /** Requests sent and not yet answered, by id. */
  pending: Map<number, { resolve(reply: MiniLmReply): void; reject(error: Error): void }>;
  /** Why the worker died, once it has: it takes no more work. */
  dead: string | null;
  /** Its linear memory as last reported: wasm memory never shrinks, so its peak. */
  heapBytes: number;
}

function spawn(): Slot {
  const slot: Slot = {
    worker: new Worker(new URL('./minilm-worker.ts', import.meta.url), { type: 'module' }),
    pending: new Map(),
    dead: null,
    heapBytes: 0,
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

export class MiniLmPool {
  readonly #slots: Slot[];
  readonly #info: ModelInfo;
  #next = 1;

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

  async #ask(slot: Slot, texts: string[], query: boolean): Promise<Float32Array> {
    const id = this.#next;
    this.#next += 1;
    const reply = await MiniLmPool.#send(slot, { id, op: 'embed', texts, query });
    if (reply.op === 'error') throw new Error(reply.message);
    if (reply.op !== 'embed') throw new Error('unexpected reply from a MiniLM worker');
    slot.heapBytes = Math.max(slot.heapBytes, reply.heapBytes);
    return reply.vectors;
  }

  /** Embeds `texts`, one part per worker: `texts.length` vectors of `dim` floats, end to end. */
  async embed(texts: string[]): Promise<Float32Array> {
    const live = this.#live();
    if (live.length === 0) throw new Error('every MiniLM worker has stopped');
    if (texts.length === 0) return new Float32Array(0);
    let start = 0;
    const parts = cut(texts, live.length).map((end, i) => {
      const part = texts.slice(start, end);
      start = end;
      return this.#ask(live[i] as Slot, part, false);
    });
    const vectors = await Promise.all(parts);
    const out = new Float32Array(texts.length * this.#info.dim);
    let at = 0;
    for (const v of vectors) {
      out.set(v, at);
      at += v.length;
    }
    return out;
  }

  /** A query's vector (a long one read in segments), from the least busy worker. */
  embedQuery(text: string): Promise<Float32Array> {
    const live = this.#live();
    if (live.length === 0) return Promise.reject(new Error('every MiniLM worker has stopped'));
    const idle = live.reduce((best, s) => (s.pending.size < best.pending.size ? s : best));
    return this.#ask(idle, [text], true);
  }

  /** Stops every worker; what they had in hand is dropped. */
  terminate(): void {
    for (const slot of this.#slots) {
      slot.dead ??= 'MiniLM was stopped';
      for (const waiter of slot.pending.values()) waiter.reject(new Error(slot.dead));
      slot.pending.clear();
      slot.worker.terminate();
    }
  }
}
