// A fetch worker: reads a split bundle's items from its host for the
// engine's worker (web/src/fetching.ts), a wave of them at a time, and
// keeps the copies the reader took offline. The engine's worker lets it go
// after a few hundred requests, and so frees what those requests left
// behind.
import { type FetchReply, type FetchRequest, errorMessage, fetchAll, keepAll } from './fetching';

interface FetchScope {
  postMessage(message: FetchReply, transfer?: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<FetchRequest>) => void): void;
}
const scope = self as unknown as FetchScope;

scope.addEventListener('message', (event) => {
  const request = event.data;
  const { id } = request;
  if ('keep' in request) {
    keepAll(request.keep.store, request.keep.items).then(
      () => scope.postMessage({ id, kept: true }),
      (error: unknown) => scope.postMessage({ id, failed: errorMessage(error) }),
    );
    return;
  }
  void fetchAll(request.fetch).then((results) => {
    const buffers = results.flatMap((r) => (r instanceof Uint8Array ? [r.buffer] : []));
    scope.postMessage({ id, results }, buffers);
  });
});
scope.postMessage({ ready: true });
