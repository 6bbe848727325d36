// The semantic-search badge: which lane reads meaning now (the static table's,
// then MiniLM's), how far MiniLM has come and on which backend, an estimate of
// the time left, and a way to run MiniLM on the CPU where WebGPU is missing.
import type { EmbeddingProgress } from '../../web/src/index';

function duration(seconds: number): string {
  if (seconds < 90) return `${Math.max(1, Math.round(seconds))} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

export class EmbeddingBadge {
  readonly #root: HTMLElement;
  readonly #onRunOnCpu: () => void;

  /** `onRunOnCpu`: the reader asked for MiniLM on the CPU, where it waited for WebGPU. */
  constructor(root: HTMLElement, onRunOnCpu: () => void) {
    this.#root = root;
    this.#onRunOnCpu = onRunOnCpu;
  }

  #show(state: string, text: string, title = '', action?: HTMLElement): void {
    this.#root.dataset.state = state;
    this.#root.replaceChildren(text, ...(action ? [' ', action] : []));
    this.#root.title = title;
  }

  update(p: EmbeddingProgress): void {
    const backend = `${p.backend ?? ''}${p.workers !== null && p.workers > 1 ? `, ${p.workers} workers` : ''}`;
    Object.assign(this.#root.dataset, {
      serving: p.serving ?? '',
      backend: backend.split(' ')[0] ?? '',
      workers: String(p.workers ?? ''),
      chunks: String(p.chunks),
      done: String(p.done),
      cached: String(p.cached),
      fallback: p.fallback ?? '',
    });
    const fallback = p.fallback ? ` (WebGPU unavailable: ${p.fallback})` : '';
    const staticNote = p.staticError ? `The static lane is unavailable: ${p.staticError}` : '';
    // What serves meaning until MiniLM is done: the static lane, or nothing.
    const meanwhile = p.serving === 'static' ? 'Semantic search: static lane' : 'Lexical search';
    switch (p.state) {
      case 'waiting': {
        if (p.serving === null) {
          this.fail(p.staticError ?? 'no lane is loaded');
          return;
        }
        const run = document.createElement('button');
        run.type = 'button';
        run.className = 'link-button';
        run.dataset.testid = 'run-minilm-cpu';
        run.textContent = 'Run MiniLM on the CPU';
        run.title = `Embeds all ${p.chunks} chunks with MiniLM on this machine's processor: a few chunks a second, so minutes for a small repository and hours for a large one. Search keeps working meanwhile.`;
        run.addEventListener('click', () => {
          run.disabled = true;
          this.#onRunOnCpu();
        });
        const why = p.waiting ? ` · MiniLM waits: ${p.waiting}` : '';
        this.#show('waiting', `${meanwhile} (a table distilled from MiniLM)${why}.`, staticNote, p.waiting === 'not asked for' ? undefined : run);
        return;
      }
      case 'loading':
        this.#show('loading', `${meanwhile} · loading MiniLM…`, staticNote);
        return;
      case 'embedding': {
        const eta = p.etaSeconds === null ? '' : ` · about ${duration(p.etaSeconds)} left`;
        const cached = p.cached > 0 ? ` (${p.cached} from cache)` : '';
        this.#show('embedding', `${meanwhile} · MiniLM: ${p.done}/${p.chunks} chunks on ${backend}${cached}${eta}`, `${fallback}${staticNote}`.trim());
        return;
      }
      case 'building':
        this.#show('building', `${meanwhile} · building MiniLM's vector index over ${p.chunks} chunks…`);
        return;
      case 'ready':
        this.#show('ready', `Hybrid search ready · MiniLM on ${backend} · ${p.chunks} chunks${p.cached > 0 ? `, ${p.cached} from cache` : ''}`, fallback);
        return;
      case 'failed':
        if (p.serving === 'static') {
          this.#show('failed', `Semantic search: static lane · MiniLM unavailable: ${p.error ?? 'unknown error'}`);
        } else {
          this.fail(p.error ?? 'unknown error');
        }
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
