// Module worker hosting the wasm engine. Requests are served one at a time, in
// order; a failing request turns into an error reply and the worker keeps going.
import init, { Workspace } from '../../pkg/fathom_wasm.js';
import wasmUrl from '../../pkg/fathom_wasm_bg.wasm?url';
import type { Progress, Stage, WorkerReply, WorkerRequest } from './protocol';

/** Minimum gap between two progress messages of the same stage. */
const PROGRESS_INTERVAL_MS = 30;

interface WorkerScope {
  postMessage(message: WorkerReply): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<WorkerRequest>) => void): void;
}
const scope = self as unknown as WorkerScope;

let workspace: Promise<Workspace> | undefined;

function getWorkspace(): Promise<Workspace> {
  workspace ??= init({ module_or_path: wasmUrl }).then(
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

async function handle(request: WorkerRequest): Promise<WorkerReply> {
  const ws = await getWorkspace();
  const { id } = request;
  switch (request.op) {
    case 'indexZip': {
      const onProgress = throttledProgress((progress) =>
        scope.postMessage({ id, type: 'progress', progress }),
      );
      const value = ws.indexZip(request.name, new Uint8Array(request.bytes), onProgress);
      return { id, type: 'result', op: 'indexZip', value };
    }
    case 'search':
      return { id, type: 'result', op: 'search', value: ws.search(request.query, request.limit) };
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
      if (error instanceof WebAssembly.RuntimeError) {
        // A trap may leave the instance's state inconsistent: start a fresh, empty workspace.
        workspace = workspace?.then(() => new Workspace());
      }
      scope.postMessage({ id: request.id, type: 'error', message: errorMessage(error) });
    }
  });
});
