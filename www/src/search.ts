// Search-as-you-type box with a ranked, keyboard-navigable result list.
import type { SearchHit, SymbolKind } from '../../web/src/index';
import { h, plural } from './dom';

const DEBOUNCE_MS = 80;
const RESULT_LIMIT = 50;

const KIND_BADGES: Record<SymbolKind, string> = {
  module: 'mod',
  package: 'pkg',
  class: 'cls',
  function: 'fn',
  method: 'meth',
  field: 'fld',
  global_variable: 'var',
  annotation: 'ann',
};

export interface SearchPanelOptions {
  input: HTMLInputElement;
  list: HTMLElement;
  status: HTMLElement;
  search(query: string, limit: number): Promise<SearchHit[]>;
  onOpen(hit: SearchHit): void;
}

export function citation(hit: SearchHit): string {
  return `${hit.file}:${hit.start_line}-${hit.end_line}`;
}

export class SearchPanel {
  readonly #options: SearchPanelOptions;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Increases with every search issued; replies to older searches are dropped. */
  #generation = 0;
  #shownQuery: string | undefined;
  #hits: SearchHit[] = [];
  #items: HTMLElement[] = [];
  #active = -1;

  constructor(options: SearchPanelOptions) {
    this.#options = options;
    const { input, list } = options;
    input.addEventListener('input', () => this.#schedule());
    input.addEventListener('keydown', (event) => this.#onKey(event));
    list.addEventListener('click', (event) => {
      const item = (event.target as Element).closest<HTMLElement>('[data-index]');
      if (item) this.#open(Number(item.dataset.index));
    });
  }

  /** Enables the box for a fresh index and re-runs the current query against it. */
  enable(): void {
    this.#options.input.disabled = false;
    this.#shownQuery = undefined;
    this.#render('', []);
    if (this.#query()) void this.#run();
    else this.#options.input.focus();
  }

  #query(): string {
    return this.#options.input.value.trim();
  }

  #schedule(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#run(), DEBOUNCE_MS);
  }

  async #run(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const query = this.#query();
    const generation = ++this.#generation;
    if (!query) {
      this.#render('', []);
      return;
    }
    try {
      const hits = await this.#options.search(query, RESULT_LIMIT);
      if (generation === this.#generation) this.#render(query, hits);
    } catch (error) {
      if (generation === this.#generation) this.#render(query, [], (error as Error).message);
    }
  }

  #onKey(event: KeyboardEvent): void {
    switch (event.key) {
      case 'ArrowDown':
        event.preventDefault();
        this.#setActive(Math.min(this.#active + 1, this.#items.length - 1));
        break;
      case 'ArrowUp':
        event.preventDefault();
        this.#setActive(Math.max(this.#active - 1, 0));
        break;
      case 'Enter':
        event.preventDefault();
        if (this.#timer !== undefined || this.#shownQuery !== this.#query()) void this.#run();
        else this.#open(Math.max(this.#active, 0));
        break;
    }
  }

  #setActive(index: number): void {
    this.#items[this.#active]?.classList.remove('active');
    this.#items[this.#active]?.setAttribute('aria-selected', 'false');
    this.#active = index;
    const item = this.#items[index];
    if (!item) return;
    item.classList.add('active');
    item.setAttribute('aria-selected', 'true');
    item.scrollIntoView({ block: 'nearest' });
  }

  #open(index: number): void {
    const hit = this.#hits[index];
    if (!hit) return;
    this.#setActive(index);
    this.#options.onOpen(hit);
  }

  #render(query: string, hits: SearchHit[], error?: string): void {
    const { list, status } = this.#options;
    this.#shownQuery = query;
    this.#hits = hits;
    this.#active = -1;
    this.#items = hits.map((hit, index) => resultItem(hit, index));
    list.replaceChildren(...this.#items);
    list.dataset.query = query;
    status.classList.toggle('error', error !== undefined);
    if (error !== undefined) status.textContent = `Search failed: ${error}`;
    else if (!query) status.textContent = '';
    else if (hits.length === 0) status.textContent = `No symbols match “${query}”`;
    else status.textContent = `${plural(hits.length, 'result')}${hits.length === RESULT_LIMIT ? ' (top matches)' : ''}`;
  }
}

function resultItem(hit: SearchHit, index: number): HTMLElement {
  const prefix = hit.symbol.endsWith(hit.name) ? hit.symbol.slice(0, hit.symbol.length - hit.name.length) : '';
  const name = prefix ? hit.name : hit.symbol;
  return h('li', {
    'data-testid': 'search-result',
    'data-index': index,
    role: 'option',
    'aria-selected': 'false',
    title: `${hit.kind} · ${hit.language} · score ${hit.score}`,
  },
    h('span', { class: `badge kind-${hit.kind}`, title: hit.kind }, KIND_BADGES[hit.kind] ?? hit.kind),
    h('span', { class: 'symbol' }, prefix ? h('span', { class: 'qual' }, prefix) : null, h('span', { class: 'name' }, name)),
    h('span', { class: `match match-${hit.match}` }, hit.match),
    h('span', { class: 'cite' }, citation(hit)),
  );
}
