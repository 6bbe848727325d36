// A parse worker: its own wasm instance, which parses shares of a staged
// repository for the indexing worker (web/src/parse-pool.ts) and answers
// with compact facts. It holds no index; its memory is its parsers' only.
import init, { heapStats, parseShare } from '../../pkg/fathom_wasm.js';
import type { HeapStats } from '../../pkg/fathom_wasm.js';
import type { ParseReply, ParseRequest } from './parse-pool';

interface ParseScope {
  postMessage(message: ParseReply, transfer?: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<ParseRequest>) => void): void;
}
const scope = self as unknown as ParseScope;

let ready: Promise<unknown> | undefined;

scope.addEventListener('message', (event) => {
  const { id, module, share } = event.data;
  ready ??= init({ module_or_path: module });
  ready
    .then(() => {
      const started = performance.now();
      const parsed = parseShare(new Uint8Array(share));
      const busyMs = performance.now() - started;
      scope.postMessage({ id, parsed, heapBytes: (heapStats() as HeapStats).linear_bytes, busyMs }, [parsed.buffer]);
    })
    .catch((error: unknown) => {
      scope.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
    });
});
