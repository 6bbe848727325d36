// How the engine's worker reads a split bundle's files from its host. An
// item is fetched by a fetch worker of its own (web/src/fetch-worker.ts),
// which is let go after FETCHES_PER_WORKER requests and replaced: each
// request leaves the context that made it some 16 KB of objects that
// Chromium collects late (5,000 small Range requests grew a tab by 80 MiB,
// with or without DevTools attached, and by 33 MiB when its garbage was
// collected after each thousand), and a worker let go frees all of its at
// once. Nothing waits for a worker to start: the engine's worker fetches
// the first question's items itself, then starts one (`warm`), and fetches
// by itself whenever none is ready. The root, fetched once a visit, is read
// by the engine's worker.

/** A file the network did not answer for at all (offline, or the host is down): not one it refused. */
export class Unreachable extends Error {}

/** A packed item's place in its pack, or a run of them: bytes `offset..offset + length`. */
export interface Slot {
  offset: number;
  length: number;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The most requests in flight at once. A wide walk (the impact of a class
 * all others use) names thousands in one wave, more than a browser lets a
 * worker open at once; over HTTP/2 this many share one connection.
 */
export const IN_FLIGHT = 48;

/** Runs `task` over `items`, at most `limit` at once; fails as the first failure does, once all have settled. */
export async function eachLimited<T>(items: T[], limit: number, task: (item: T, at: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const failures: unknown[] = [];
  const lane = async () => {
    while (next < items.length) {
      const at = next++;
      await task(items[at] as T, at).catch((error: unknown) => failures.push(error));
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failures.length > 0) throw failures[0];
}

/**
 * A file a host serves, or an error that names it and what went wrong;
 * with a `slot`, that slot of it, by a Range request. A host that sends the
 * whole file instead is named, and the file is not read: a split bundle's
 * packed items (the meaning's rows and table) need a host that serves byte
 * ranges, as static hosts do.
 */
export async function fetchChecked(url: string, what: string, init: RequestInit = {}, slot?: Slot): Promise<Uint8Array> {
  const range = slot ? `bytes=${slot.offset}-${slot.offset + slot.length - 1}` : undefined;
  let response: Response;
  try {
    response = await fetch(url, range ? { ...init, headers: { Range: range } } : init);
  } catch (error) {
    throw new Unreachable(`could not fetch ${what} (${url}${range ? `, ${range}` : ''}): ${errorMessage(error)}`);
  }
  if (!response.ok) throw new Error(`${what} is missing: ${url} answered HTTP ${response.status}`);
  const whole = slot !== undefined && response.status !== 206;
  if (whole && !(slot.offset === 0 && response.headers.get('content-length') === String(slot.length))) {
    void response.body?.cancel().catch(() => undefined);
    throw new Error(`${what} could not be read: ${url} answered a Range request (${range}) with HTTP ${response.status} and the whole file, so this host does not serve byte ranges, which a split bundle's packed items need`);
  }
  if ((response.headers.get('content-type') ?? '').startsWith('text/html')) {
    throw new Error(`${url} answered with an HTML page, not ${what}: is the path right?`);
  }
  return new Uint8Array(await response.arrayBuffer());
}

/** A file, or a slot of it, that the engine's worker asks for. */
export interface Wanted {
  url: string;
  what: string;
  slot?: Slot | undefined;
}

/** Why a file was not read, as a fetch worker says it. */
export interface Failed {
  error: string;
  unreachable: boolean;
}

/** What the engine's worker asks a fetch worker for: files (each as `fetchChecked` reads it), or to keep copies in a store of Cache Storage. */
export type FetchRequest = { id: number; fetch: Wanted[] } | { id: number; keep: { store: string; items: Kept[] } };

/** A copy to keep, as `url`. */
export interface Kept {
  url: string;
  bytes: Uint8Array;
}

/** A fetch worker's answer: each file's bytes (handed over, not copied) or why not, in the order asked; that the copies are kept; or, first, that it is ready. */
export type FetchReply = { id: number; results: (Uint8Array | Failed)[] } | { id: number; kept: true } | { id: number; failed: string } | { ready: true };

/** Requests a fetch worker makes before it is let go. */
export const FETCHES_PER_WORKER = 256;

function failure(error: unknown): Failed {
  return { error: errorMessage(error), unreachable: error instanceof Unreachable };
}

/**
 * Files, each as `fetchChecked` reads it or why not, in order, IN_FLIGHT
 * at a time, each also given to `each` as it comes: a fetch worker's work,
 * or the engine's worker's while none is ready.
 */
export async function fetchAll(wanted: Wanted[], each?: (at: number, result: Uint8Array | Failed) => void): Promise<(Uint8Array | Failed)[]> {
  const results: (Uint8Array | Failed)[] = new Array(wanted.length);
  await eachLimited(wanted, IN_FLIGHT, async ({ url, what, slot }, at) => {
    const result = await fetchChecked(url, what, {}, slot).catch(failure);
    results[at] = result;
    each?.(at, result);
  });
  return results;
}

/** Cache Storage's stores opened in this context, by name. */
const stores = new Map<string, Promise<Cache>>();

/** The Cache Storage store named `name`, opened once in this context. */
export function openStore(name: string): Promise<Cache> {
  let opened = stores.get(name);
  if (!opened) {
    opened = caches.open(name);
    stores.set(name, opened);
  }
  return opened;
}

/** Keeps copies in the store named `store`. */
export async function keepAll(store: string, items: Kept[]): Promise<void> {
  const cache = await openStore(store);
  await Promise.all(items.map(({ url, bytes }) => cache.put(url, new Response(bytes as BlobPart))));
}

function asError(result: Uint8Array | Failed): Uint8Array | Error {
  return result instanceof Uint8Array ? result : result.unreachable ? new Unreachable(result.error) : new Error(result.error);
}

function asErrors(results: (Uint8Array | Failed)[]): (Uint8Array | Error)[] {
  return results.map(asError);
}

interface Fetcher {
  worker: Worker;
  /** It said it is ready: before, its work is done here. */
  ready: boolean;
  sent: number;
  waiting: Map<number, { resolve: (results: (Uint8Array | Error)[]) => void; reject: (error: Error) => void }>;
  /** Replaced: it ends once its last answer is in. */
  retired: boolean;
}

/**
 * The fetch workers: one takes requests until it has made
 * FETCHES_PER_WORKER, then a new one does, and the old one ends once it
 * has answered. A worker that fails fails what it was asked, by name, and
 * the engine's worker fetches by itself from then on (a site that did not
 * copy the worker's script still answers).
 */
export class FetchPool {
  #current: Fetcher | undefined;
  /** The next, started once the current one has had its share, so that it is ready when asked. */
  #spare: Fetcher | undefined;
  /** A worker failed to start or run: from then on the engine's worker fetches by itself. */
  #failed = false;
  #next = 1;

  /** Starts a worker ahead of the requests it will make, unless one is started (or they failed). */
  warm(): void {
    if (!this.#failed) this.#current ??= this.#spawn();
  }

  /** A file a host serves, or a slot of it (`fetchChecked`'s). */
  async fetch(url: string, what: string, slot?: Slot): Promise<Uint8Array> {
    const [result] = await this.fetchMany([{ url, what, slot }]);
    if (result instanceof Uint8Array) return result;
    throw result ?? new Error(`${what} was not fetched`);
  }

  /**
   * Files, each as `fetchChecked` reads it or the error it met, in order,
   * each also given to `each`: as it comes where this worker fetches, all
   * at once from a fetch worker, with one message each way for each
   * FETCHES_PER_WORKER of them.
   */
  async fetchMany(wanted: Wanted[], each: (at: number, result: Uint8Array | Error) => void = () => {}): Promise<(Uint8Array | Error)[]> {
    const shares: Wanted[][] = [];
    for (let at = 0; at < wanted.length; at += FETCHES_PER_WORKER) shares.push(wanted.slice(at, at + FETCHES_PER_WORKER));
    const answers = await Promise.all(
      shares.map(async (share, n) => {
        const first = n * FETCHES_PER_WORKER;
        const fetcher = this.#fetcher(share.length);
        if (!fetcher) {
          // Each read once as the error it met, the same one handed to `each` and returned.
          const results: (Uint8Array | Error)[] = new Array(share.length);
          await fetchAll(share, (at, result) => each(first + at, (results[at] = asError(result))));
          return results;
        }
        const results = await this.#ask(fetcher, { id: this.#next++, fetch: share });
        results.forEach((result, at) => each(first + at, result));
        return results;
      }),
    );
    return answers.flat();
  }

  /** Keeps copies in the store named `store`, each as its `url`. */
  async keepMany(store: string, items: Kept[]): Promise<void> {
    const fetcher = this.#fetcher(items.length);
    await (fetcher ? this.#ask(fetcher, { id: this.#next++, keep: { store, items } }) : keepAll(store, items));
  }

  /** The worker to send `requests` more to, counted; none before one is warmed, or while the one starting is not ready yet. */
  #fetcher(requests: number): Fetcher | undefined {
    let fetcher = this.#current;
    if (this.#failed || !fetcher) return undefined;
    if (fetcher.sent >= FETCHES_PER_WORKER) {
      this.#retire(fetcher);
      fetcher = this.#spare ?? this.#spawn();
      this.#current = fetcher;
      this.#spare = undefined;
    }
    if (!fetcher.ready) return undefined;
    fetcher.sent += requests;
    if (fetcher.sent >= FETCHES_PER_WORKER) this.#spare ??= this.#spawn();
    return fetcher;
  }

  #ask(fetcher: Fetcher, request: FetchRequest): Promise<(Uint8Array | Error)[]> {
    return new Promise((resolve, reject) => {
      fetcher.waiting.set(request.id, { resolve, reject });
      fetcher.worker.postMessage(request);
    });
  }

  #spawn(): Fetcher {
    const worker = new Worker(new URL('./fetch-worker.ts', import.meta.url), { type: 'module', name: 'fathom-fetch' });
    const fetcher: Fetcher = { worker, ready: false, sent: 0, waiting: new Map(), retired: false };
    worker.onmessage = (event: MessageEvent<FetchReply>) => {
      const reply = event.data;
      if ('ready' in reply) {
        fetcher.ready = true;
        return;
      }
      const waiter = fetcher.waiting.get(reply.id);
      fetcher.waiting.delete(reply.id);
      if ('results' in reply) waiter?.resolve(asErrors(reply.results));
      else if ('kept' in reply) waiter?.resolve([]);
      else waiter?.reject(new Error(reply.failed));
      if (fetcher.retired && fetcher.waiting.size === 0) worker.terminate();
    };
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      const error = new Error(`the split bundle's fetch worker failed: ${event.message || 'its script did not load'}`);
      this.#failed = true;
      for (const waiter of fetcher.waiting.values()) waiter.reject(error);
      fetcher.waiting.clear();
      if (this.#current === fetcher) this.#current = undefined;
      if (this.#spare === fetcher) this.#spare = undefined;
      worker.terminate();
    };
    return fetcher;
  }

  #retire(fetcher: Fetcher): void {
    fetcher.retired = true;
    if (fetcher.waiting.size === 0) fetcher.worker.terminate();
  }
}
