// The semantic-search badge: which backend runs the model, how far embedding
// has come, an estimate of the time left, and when hybrid search is ready.
import type { EmbeddingProgress } from '../../web/src/index';

function duration(seconds: number): string {
  if (seconds < 90) return `${Math.max(1, Math.round(seconds))} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

export class EmbeddingBadge {
  readonly #root: HTMLElement;

  constructor(root: HTMLElement) {
    this.#root = root;
  }

  #show(state: string, text: string, title = ''): void {
    this.#root.dataset.state = state;
    this.#root.textContent = text;
    this.#root.title = title;
  }

  update(p: EmbeddingProgress): void {
    const backend = p.backend ?? '';
    Object.assign(this.#root.dataset, {
      backend: backend.split(' ')[0] ?? '',
      chunks: String(p.chunks),
      done: String(p.done),
      cached: String(p.cached),
      fallback: p.fallback ?? '',
    });
    const fallback = p.fallback ? ` (WebGPU unavailable: ${p.fallback})` : '';
    switch (p.state) {
      case 'loading':
        this.#show('loading', 'Semantic search: loading the model…');
        return;
      case 'embedding': {
        const eta = p.etaSeconds === null ? '' : ` · about ${duration(p.etaSeconds)} left`;
        const cached = p.cached > 0 ? ` (${p.cached} from cache)` : '';
        this.#show('embedding', `Embedding ${p.done}/${p.chunks} chunks on ${backend}${cached}${eta} · lexical search meanwhile`, fallback);
        return;
      }
      case 'building':
        this.#show('building', `Building the vector index over ${p.chunks} chunks…`);
        return;
      case 'ready':
        this.#show('ready', `Hybrid search ready · ${backend} · ${p.chunks} chunks${p.cached > 0 ? `, ${p.cached} from cache` : ''}`, fallback);
        return;
      case 'failed':
        this.fail(p.error ?? 'unknown error');
        return;
    }
  }

  fail(message: string): void {
    this.#show('failed', `Semantic search unavailable: ${message}. Lexical search works.`);
  }

  off(): void {
    this.#show('off', 'Semantic search off (?embed=off)');
  }
}
