// Embeddings kept in IndexedDB by the hash of the chunk they embed, per model,
// so reopening or re-indexing a changed archive embeds only what changed.
// Everything stays in this origin's storage, in this browser.

const DB_NAME = 'fathom-embeddings';
const STORE = 'vectors';

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB request failed'));
  });
}

function done(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error ?? new Error('IndexedDB transaction failed'));
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
  });
}

export class EmbeddingCache {
  readonly #db: IDBDatabase;
  /** Keys are `<model hash prefix>:<chunk hash>`: another model's vectors never match. */
  readonly #prefix: string;

  private constructor(db: IDBDatabase, model: string) {
    this.#db = db;
    this.#prefix = `${model.slice(0, 16)}:`;
  }

  static async open(model: string): Promise<EmbeddingCache> {
    const open = indexedDB.open(DB_NAME, 1);
    open.onupgradeneeded = () => open.result.createObjectStore(STORE);
    return new EmbeddingCache(await request(open), model);
  }

  async getMany(hashes: string[]): Promise<Map<string, Float32Array>> {
    const tx = this.#db.transaction(STORE, 'readonly');
    const store = tx.objectStore(STORE);
    const found = new Map<string, Float32Array>();
    await Promise.all(
      hashes.map(async (hash) => {
        const value: unknown = await request(store.get(this.#prefix + hash));
        if (value instanceof Float32Array) found.set(hash, value);
      }),
    );
    return found;
  }

  /** `vectors` holds `hashes.length` vectors of `dim` floats, end to end. */
  async putMany(hashes: string[], vectors: Float32Array, dim: number): Promise<void> {
    const tx = this.#db.transaction(STORE, 'readwrite');
    const store = tx.objectStore(STORE);
    hashes.forEach((hash, i) => store.put(vectors.slice(i * dim, (i + 1) * dim), this.#prefix + hash));
    await done(tx);
  }
}
