// The persistent library: index bundles (the engine's `.fathom` bytes) kept in
// IndexedDB, keyed by the SHA-256 of the archive they were built from, so an
// archive indexed once reopens instantly, offline, after a reload. The bytes
// are the engine's; this only stores, lists and deletes them.

const DB_NAME = 'fathom-library';
const STORE = 'bundles';

export interface LibraryEntry {
  /** SHA-256 of the source archive (or of the imported bundle), hex. */
  key: string;
  name: string;
  savedAt: number;
  bytes: number;
  files: number;
  symbols: number;
  /** Whether the bundle holds embeddings. */
  embedded: boolean;
}

interface Stored extends LibraryEntry {
  bundle: Uint8Array;
}

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error ?? new Error('IndexedDB request failed'));
  });
}

export async function sha256(bytes: ArrayBuffer | Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes as BufferSource);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export class Library {
  readonly #db: IDBDatabase;

  private constructor(db: IDBDatabase) {
    this.#db = db;
  }

  static async open(): Promise<Library> {
    const open = indexedDB.open(DB_NAME, 1);
    open.onupgradeneeded = () => {
      open.result.createObjectStore(STORE, { keyPath: 'key' });
    };
    return new Library(await request(open));
  }

  async list(): Promise<LibraryEntry[]> {
    const store = this.#db.transaction(STORE, 'readonly').objectStore(STORE);
    const all = (await request(store.getAll())) as Stored[];
    return all
      .map(({ bundle: _bundle, ...entry }) => entry)
      .sort((a, b) => b.savedAt - a.savedAt);
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const store = this.#db.transaction(STORE, 'readonly').objectStore(STORE);
    const found = (await request(store.get(key))) as Stored | undefined;
    return found?.bundle;
  }

  async put(entry: Omit<LibraryEntry, 'savedAt' | 'bytes'>, bundle: Uint8Array): Promise<void> {
    const stored: Stored = { ...entry, savedAt: Date.now(), bytes: bundle.byteLength, bundle };
    const tx = this.#db.transaction(STORE, 'readwrite');
    tx.objectStore(STORE).put(stored);
    await new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error ?? new Error('could not save the index'));
      tx.onabort = () => reject(tx.error ?? new Error('saving the index was aborted (is storage full?)'));
    });
  }

  async delete(key: string): Promise<void> {
    const tx = this.#db.transaction(STORE, 'readwrite');
    tx.objectStore(STORE).delete(key);
    await new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error ?? new Error('could not delete the index'));
    });
  }
}
