// The indexing worker's pool of parse workers (web/src/parse-worker.ts), one
// wasm instance each, sharing one compiled module. A staged repository's
// files are split into shares; each free worker takes the next share, and
// its answer is merged in file order by the engine, so the index does not
// depend on which worker finished first. A share whose worker fails is left
// for the indexing worker to parse itself.

export interface ParseRequest {
  id: number;
  module: WebAssembly.Module;
  share: ArrayBuffer;
}

/** A share's facts, with the worker's memory and the milliseconds it spent on the share. */
export type ParseReply = { id: number; parsed: Uint8Array; heapBytes: number; busyMs: number } | { id: number; error: string };

/** One share's answer, or why its worker gave none. */
export type ShareResult = { parsed: Uint8Array } | { error: string };

/** Below this many bytes of source, starting workers costs more than it saves. */
export const POOL_MIN_BYTES = 1 << 20;

/** Parse workers to start: one per core, at most 8. */
export function poolSize(): number {
  return Math.max(1, Math.min(navigator.hardwareConcurrency || 2, 8));
}

function spawn(): Worker {
  return new Worker(new URL('./parse-worker.ts', import.meta.url), { type: 'module' });
}

interface Slot {
  worker: Worker;
  /** The largest linear memory it has reported: wasm memory never shrinks, so its peak. */
  heapBytes: number;
  /** Milliseconds spent parsing since the last [`ParsePool.startTally`]. */
  busyMs: number;
}

export class ParsePool {
  readonly #module: WebAssembly.Module;
  readonly #slots: Slot[] = [];
  #next = 1;

  constructor(module: WebAssembly.Module, size: number) {
    this.#module = module;
    for (let i = 0; i < size; i += 1) this.#slots.push({ worker: spawn(), heapBytes: 0, busyMs: 0 });
  }

  get size(): number {
    return this.#slots.length;
  }

  /** Each worker's peak linear memory, in bytes. */
  get heapBytes(): number[] {
    return this.#slots.map((s) => s.heapBytes);
  }

  /** Each worker's milliseconds of parsing since [`ParsePool.startTally`]. */
  get busyMs(): number[] {
    return this.#slots.map((s) => s.busyMs);
  }

  /** Starts counting each worker's time spent parsing afresh (at each index). */
  startTally(): void {
    for (const slot of this.#slots) slot.busyMs = 0;
  }

  /**
   * Parses `shares`, `take(share)` giving a share's bytes when a worker is
   * free for it (so only the shares in flight are copied out at once), and
   * calls `done(share, result)` as each answer comes back.
   */
  async run<T>(shares: T[], take: (share: T) => Uint8Array, done: (share: T, result: ShareResult) => void): Promise<void> {
    const queue = [...shares].reverse();
    const drive = async (slot: Slot): Promise<void> => {
      for (let share = queue.pop(); share !== undefined; share = queue.pop()) {
        const result = await this.#parse(slot, take(share));
        done(share, result);
        if ('error' in result) {
          // Its instance may be broken (a trap, or memory exhausted): it takes
          // no more shares in this run, and a fresh worker stands in after.
          slot.worker.terminate();
          slot.worker = spawn();
          return;
        }
      }
    };
    await Promise.all(this.#slots.map(drive));
  }

  #parse(slot: Slot, share: Uint8Array): Promise<ShareResult> {
    const { worker } = slot;
    const id = this.#next;
    this.#next += 1;
    return new Promise((resolve) => {
      const cleanup = (): void => {
        worker.removeEventListener('message', onMessage);
        worker.removeEventListener('error', onError);
      };
      const onMessage = (event: MessageEvent<ParseReply>): void => {
        if (event.data.id !== id) return;
        cleanup();
        if ('error' in event.data) {
          resolve({ error: event.data.error });
        } else {
          slot.heapBytes = Math.max(slot.heapBytes, event.data.heapBytes);
          slot.busyMs += event.data.busyMs;
          resolve({ parsed: event.data.parsed });
        }
      };
      const onError = (event: ErrorEvent): void => {
        cleanup();
        resolve({ error: event.message || 'the parse worker failed' });
      };
      worker.addEventListener('message', onMessage);
      worker.addEventListener('error', onError);
      const buffer = share.buffer as ArrayBuffer;
      worker.postMessage({ id, module: this.#module, share: buffer } satisfies ParseRequest, [buffer]);
    });
  }
}
