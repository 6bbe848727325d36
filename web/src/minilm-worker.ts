// A MiniLM worker: its own instance of MiniLM's module (fathom_wasm_minilm)
// with its own copy of the weights, which embeds the texts the engine's
// worker sends it (web/src/minilm-pool.ts). It holds no index.
import init, { MiniLm } from '../../pkg/fathom_wasm_minilm.js';
import type { MiniLmReply, MiniLmRequest } from './minilm-pool';

interface MiniLmScope {
  postMessage(message: MiniLmReply, transfer?: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<MiniLmRequest>) => void): void;
}
const scope = self as unknown as MiniLmScope;

let model: Promise<MiniLm> | undefined;
let memory: WebAssembly.Memory | undefined;

async function answer(request: MiniLmRequest): Promise<MiniLmReply> {
  switch (request.op) {
    case 'load': {
      model ??= init({ module_or_path: request.module }).then((exports) => {
        memory = exports.memory;
        return MiniLm.load(new Uint8Array(request.weights), new Uint8Array(request.tokenizer), request.backend);
      });
      const info = (await model).info;
      return { id: request.id, op: 'load', info, heapBytes: memory?.buffer.byteLength ?? 0 };
    }
    case 'embed': {
      if (!model) throw new Error('MiniLM is not loaded in this worker');
      const loaded = await model;
      const vectors = request.query ? await loaded.embedQuery(request.texts[0] ?? '') : await loaded.embed(request.texts);
      return { id: request.id, op: 'embed', vectors, heapBytes: memory?.buffer.byteLength ?? 0 };
    }
  }
}

// One request at a time, in order: a batch's memory is freed before the next one starts.
let queue: Promise<void> = Promise.resolve();

scope.addEventListener('message', (event) => {
  const request = event.data;
  queue = queue.then(async () => {
    try {
      const reply = await answer(request);
      scope.postMessage(reply, reply.op === 'embed' ? [reply.vectors.buffer] : []);
    } catch (error) {
      scope.postMessage({ id: request.id, op: 'error', message: error instanceof Error ? error.message : String(error) });
    }
  });
});
