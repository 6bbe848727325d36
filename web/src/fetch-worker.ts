// A fetch worker: reads a split bundle's items from its host for the
// engine's worker (web/src/fetching.ts), a wave of them at a time, and
// keeps the copies the reader took offline. The engine's worker lets it go
// after a few hundred requests, and so frees what those requests left
// behind.
import { type Failed, type FetchReply, type FetchRequest, Unreachable, fetchChecked } from './fetching';

interface FetchScope {
  postMessage(message: FetchReply, transfer?: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<FetchRequest>) => void): void;
}
const scope = self as unknown as FetchScope;

/** The most requests in flight at once: over HTTP/2 they share one connection. */
const IN_FLIGHT = 48;

/** The stores of Cache Storage opened, by name. */
const stores = new Map<string, Promise<Cache>>();

function failure(error: unknown): Failed {
  return { error: error instanceof Error ? error.message : String(error), unreachable: error instanceof Unreachable };
}

scope.addEventListener('message', (event) => {
  const request = event.data;
  const { id } = request;
  if ('keep' in request) {
    const { store, items } = request.keep;
    let opened = stores.get(store);
    if (!opened) {
      opened = caches.open(store);
      stores.set(store, opened);
    }
    opened
      .then((cache) => Promise.all(items.map(({ url, bytes }) => cache.put(url, new Response(bytes as BlobPart)))))
      .then(
        () => scope.postMessage({ id, kept: true }),
        (error: unknown) => scope.postMessage({ id, failed: failure(error).error }),
      );
    return;
  }
  const results: (Uint8Array | Failed)[] = new Array(request.fetch.length);
  let next = 0;
  const lane = async () => {
    while (next < request.fetch.length) {
      const at = next++;
      const { url, what, slot } = request.fetch[at] as (typeof request.fetch)[number];
      results[at] = await fetchChecked(url, what, {}, slot).catch(failure);
    }
  };
  void Promise.all(Array.from({ length: Math.min(IN_FLIGHT, request.fetch.length) }, lane)).then(() => {
    const buffers = results.flatMap((r) => (r instanceof Uint8Array ? [r.buffer] : []));
    scope.postMessage({ id, results }, buffers);
  });
});
