// The semantic-search badge: which lane reads meaning now (the static table's,
// then MiniLM's), where MiniLM runs and why (each lane's measured speed), how
// far it has come, an estimate of the time left, and a way to embed every
// chunk where MiniLM judged it not worth the time.
import type { Backend, EmbeddingProgress } from '../../web/src/index';

function duration(seconds: number): string {
  if (seconds < 90) return `${Math.max(1, Math.round(seconds))} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

export class EmbeddingBadge {
  readonly #root: HTMLElement;
  readonly #onRunWhole: (lane: Backend) => void;

  /** `onRunWhole`: the reader asked MiniLM to embed every chunk, on this lane. */
  constructor(root: HTMLElement, onRunWhole: (lane: Backend) => void) {
    this.#root = root;
    this.#onRunWhole = onRunWhole;
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
    // Each lane's speed, as timed on this repository's chunks: why MiniLM runs where it does.
    const timed = p.measured.map((m) => `${m.backend.split(' ')[0]}: ${m.chunksPerSecond > 0 ? `${m.chunksPerSecond.toFixed(1)} chunks/s` : 'too slow to finish its batch'}`).join(', ');
    this.#root.dataset.measured = timed;
    const why = timed ? `Timed on this repository's chunks: ${timed}.` : '';
    switch (p.state) {
      case 'waiting': {
        if (p.serving === null) {
          this.fail(p.staticError ?? 'no lane is loaded');
          return;
        }
        if (p.waiting === 'not asked for') {
          this.#show('waiting', `${meanwhile} (a table distilled from MiniLM) · MiniLM waits: not asked for.`, staticNote);
          return;
        }
        // MiniLM runs, but every chunk would take longer than is worth it: it reads each question's candidates.
        const lane: Backend = (p.backend ?? 'cpu').startsWith('webgpu') ? 'webgpu' : 'cpu';
        const run = document.createElement('button');
        run.type = 'button';
        run.className = 'link-button';
        run.dataset.testid = 'run-minilm-whole';
        run.textContent = 'Embed every chunk';
        run.title = `Embeds all ${p.chunks} chunks with MiniLM on ${backend}${p.wholeSeconds !== null ? `: about ${duration(p.wholeSeconds)}` : ''}. Search keeps working meanwhile.`;
        run.addEventListener('click', () => {
          run.disabled = true;
          this.#onRunWhole(lane);
        });
        const whole = p.wholeSeconds !== null ? ` (every chunk would take about ${duration(p.wholeSeconds)})` : '';
        this.#show('waiting', `${meanwhile} · MiniLM on ${backend} reads each question’s best candidates${whole}.`, `${why} ${staticNote}`.trim(), run);
        return;
      }
      case 'loading':
        this.#show('loading', `${meanwhile} · loading MiniLM…`, staticNote);
        return;
      case 'measuring':
        this.#show('measuring', `${meanwhile} · timing MiniLM on this browser’s lanes…`, staticNote);
        return;
      case 'embedding': {
        const eta = p.etaSeconds === null ? '' : ` · about ${duration(p.etaSeconds)} left`;
        const cached = p.cached > 0 ? ` (${p.cached} from cache)` : '';
        this.#show('embedding', `${meanwhile} · MiniLM: ${p.done}/${p.chunks} chunks on ${backend}${cached}${eta}`, `${why}${fallback}${staticNote}`.trim());
        return;
      }
      case 'building':
        this.#show('building', `${meanwhile} · building MiniLM's vector index over ${p.chunks} chunks…`);
        return;
      case 'ready':
        this.#show('ready', `Hybrid search ready · MiniLM on ${backend} · ${p.chunks} chunks${p.cached > 0 ? `, ${p.cached} from cache` : ''}`, `${why}${fallback}`.trim());
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
