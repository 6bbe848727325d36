// Search-as-you-type box with a ranked, keyboard-navigable result list.
import type { SearchHit, SearchMode, SearchResults, SymbolKind } from '../../web/src/index';
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
  search(query: string, limit: number, mode: SearchMode): Promise<SearchResults>;
  /** Picks lexical, dense or hybrid. */
  mode: HTMLSelectElement;
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
    options.mode.addEventListener('change', () => void this.#run());
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

  /** Runs the current query again: embeddings became ready, say. */
  refresh(): void {
    if (this.#query() && !this.#options.input.disabled) void this.#run();
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
      const mode = this.#options.mode.value as SearchMode;
      const results = await this.#options.search(query, RESULT_LIMIT, mode);
      if (generation === this.#generation) this.#render(query, results.hits, undefined, results);
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

  #render(query: string, hits: SearchHit[], error?: string, results?: SearchResults): void {
    const { list, status } = this.#options;
    this.#shownQuery = query;
    this.#hits = hits;
    this.#active = -1;
    this.#items = hits.map((hit, index) => resultItem(hit, index));
    list.replaceChildren(...this.#items);
    list.dataset.query = query;
    list.dataset.mode = results?.mode ?? '';
    status.classList.toggle('error', error !== undefined);
    if (error !== undefined) status.textContent = `Search failed: ${error}`;
    else if (!query) status.textContent = '';
    else if (hits.length === 0) status.textContent = `No symbols match “${query}”`;
    else {
      const count = `${plural(hits.length, 'result')}${hits.length === RESULT_LIMIT ? ' (top matches)' : ''}`;
      status.textContent = `${count} · ${results?.mode ?? ''}${results?.note ? ` — ${results.note}` : ''}`;
    }
  }
}

/** The lanes that found a hit, as short chips: `bm25 #2`, `dense #1 (0.61)`, `name`, `trace`, `via CALLS`. */
function why(hit: SearchHit): HTMLElement[] {
  const e = hit.explain;
  const chips: [string, string][] = [];
  if (e.lexical_rank !== null) chips.push(['lexical', `bm25 #${e.lexical_rank}`]);
  if (e.dense_rank !== null) chips.push(['dense', `dense #${e.dense_rank}${e.similarity !== null ? ` ${e.similarity.toFixed(2)}` : ''}`]);
  if (e.name_rank !== null) chips.push(['name', `name ${hit.match ?? ''}`.trim()]);
  if (e.trace_rank !== null) chips.push(['trace', `trace #${e.trace_rank}`]);
  if (e.graph) chips.push(['graph', `via ${e.graph.edge}`]);
  return chips.map(([lane, text]) => h('span', { class: `lane lane-${lane}`, 'data-lane': lane }, text));
}

function explainTitle(hit: SearchHit): string {
  const e = hit.explain;
  const lines = [`${hit.kind} · ${hit.language} · score ${hit.score}`];
  if (e.matched_terms.length > 0) lines.push(`matched terms: ${e.matched_terms.join(', ')}`);
  if (e.chunk_lines) lines.push(`best chunk: lines ${e.chunk_lines[0]}-${e.chunk_lines[1]}`);
  if (e.graph) lines.push(`graph: ${e.graph.edge} ${e.graph.outgoing ? 'from' : 'to'} ${e.graph.from} (confidence ${e.graph.confidence})`);
  return lines.join('\n');
}

function resultItem(hit: SearchHit, index: number): HTMLElement {
  const prefix = hit.symbol.endsWith(hit.name) ? hit.symbol.slice(0, hit.symbol.length - hit.name.length) : '';
  const name = prefix ? hit.name : hit.symbol;
  return h('li', {
    'data-testid': 'search-result',
    'data-index': index,
    role: 'option',
    'aria-selected': 'false',
    title: explainTitle(hit),
  },
    h('span', { class: `badge kind-${hit.kind}`, title: hit.kind }, KIND_BADGES[hit.kind] ?? hit.kind),
    h('span', { class: 'symbol' }, prefix ? h('span', { class: 'qual' }, prefix) : null, h('span', { class: 'name' }, name)),
    h('span', { class: 'why' }, ...why(hit)),
    h('span', { class: 'cite' }, citation(hit)),
  );
}
