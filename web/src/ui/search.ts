// Search-as-you-type box with a ranked, keyboard-navigable result list.
import type { EmbeddingProgress, FileHit, LiveResults, Meaning, Reading, Refinement, SearchFilter, SearchHit, SearchMode, SearchResults, SymbolKind } from '../index';
import { h, pathLabel, plural, symbolLabel } from './dom';

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
  /**
   * Answers at once; where MiniLM reads the question, `onRefined` hears its
   * refinement once (the panel drops one for a query no longer shown).
   */
  search(query: string, limit: number, mode: SearchMode, filter: Partial<SearchFilter>, onRefined: (refinement: Refinement) => void): Promise<LiveResults>;
  /** Picks lexical, dense or hybrid. */
  mode: HTMLSelectElement;
  /** The filter row: language, kind, path and tests controls, and the symbols/files switch. */
  filters: HTMLElement;
  onOpen(hit: SearchHit): void;
  onOpenFile(file: FileHit): void;
  /**
   * How many results a query asks for first (by default all the list shows,
   * 50). Fewer, and a full page ends with a button that asks for the rest:
   * over a split bundle each result shown is read from the host.
   */
  firstPage?(): number | undefined;
  /** Hears every answer shown (an empty query, or a failed search, gives none). */
  onResults?(query: string, results: SearchResults | undefined): void;
}

/** A multi-line text as the one-line box shows it. */
function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
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
  #files: FileHit[] = [];
  #items: HTMLElement[] = [];
  #active = -1;
  /**
   * A pasted bug report or traceback, lines and all: a one-line box would
   * join its lines, and the engine reads a report by them (its frames, its
   * code blocks). It is the query while the box still shows it.
   */
  #report: string | undefined;
  /** The query whose every result the reader asked for (its "more results"). */
  #moreFor: string | undefined;

  constructor(options: SearchPanelOptions) {
    this.#options = options;
    const { input, list } = options;
    input.addEventListener('input', () => this.#schedule());
    options.mode.addEventListener('change', () => void this.#run());
    options.filters.addEventListener('change', () => void this.#run());
    options.filters.addEventListener('input', (event) => {
      if ((event.target as HTMLElement).matches('input[type="text"], input[type="search"]')) this.#schedule();
    });
    input.addEventListener('keydown', (event) => this.#onKey(event));
    // The list takes focus too (it scrolls): the same keys move through it.
    list.addEventListener('keydown', (event) => {
      if (event.target === list) this.#onKey(event);
    });
    input.addEventListener('paste', (event) => {
      const text = event.clipboardData?.getData('text/plain') ?? '';
      if (!/[\r\n]/.test(text.trim())) return;
      event.preventDefault();
      this.#report = text;
      input.value = oneLine(text);
      this.#schedule();
    });
    list.addEventListener('click', (event) => {
      if ((event.target as Element).closest('[data-testid="more-results"]')) {
        this.#moreFor = this.#shownQuery;
        void this.#run();
        return;
      }
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
    const value = this.#options.input.value;
    if (this.#report !== undefined && value === oneLine(this.#report)) return this.#report.trim();
    this.#report = undefined;
    return value.trim();
  }

  /** Lists the languages of the index in the language filter. */
  setLanguages(languages: string[]): void {
    const select = this.#options.filters.querySelector<HTMLSelectElement>('[data-filter="language"]');
    if (!select) return;
    select.replaceChildren(h('option', { value: '' }, 'any language'), ...languages.map((l) => h('option', { value: l }, l)));
  }

  #control<T extends HTMLElement>(name: string): T | null {
    return this.#options.filters.querySelector<T>(`[data-filter="${name}"]`);
  }

  #filter(): Partial<SearchFilter> {
    const value = (name: string) => this.#control<HTMLInputElement | HTMLSelectElement>(name)?.value.trim() ?? '';
    const language = value('language');
    const kind = value('kind');
    const path = value('path');
    const tests = value('tests');
    return {
      languages: language ? [language] : [],
      kinds: kind ? [kind] : [],
      path: path || null,
      tests: (tests || 'include') as SearchFilter['tests'],
    };
  }

  #showFiles(): boolean {
    return this.#control<HTMLInputElement>('files')?.checked ?? false;
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
      // Words answer at once; MiniLM's reading refines the list in place when it comes.
      let shown: SearchResults | undefined;
      const refined = (refinement: Refinement) => {
        if (generation !== this.#generation) return;
        if (refinement.results) this.#render(query, refinement.results.hits, undefined, refinement.results, refinement.reading, true);
        else if (shown) this.#render(query, shown.hits, undefined, shown, refinement.reading, true);
      };
      const results = await this.#options.search(query, this.#limit(query), mode, this.#filter(), refined);
      if (generation === this.#generation) {
        shown = results;
        this.#render(query, results.hits, undefined, results, results.reading);
      }
    } catch (error) {
      if (generation === this.#generation) this.#render(query, [], (error as Error).message);
    }
  }

  /** How many results `query` asks for: the first page, or all once the reader asked for more. */
  #limit(query: string): number {
    return query === this.#moreFor ? RESULT_LIMIT : Math.min(this.#options.firstPage?.() ?? RESULT_LIMIT, RESULT_LIMIT);
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
    scrollNearest(this.#options.list, item);
  }

  #open(index: number): void {
    const file = this.#files[index];
    if (file) {
      this.#setActive(index);
      this.#options.onOpenFile(file);
      return;
    }
    const hit = this.#hits[index];
    if (!hit) return;
    this.#setActive(index);
    this.#options.onOpen(hit);
  }

  #render(query: string, hits: SearchHit[], error?: string, results?: SearchResults, reading?: Reading, refinement = false): void {
    const { list, status } = this.#options;
    this.#shownQuery = query;
    // A refinement keeps the reader's place: the same result stays selected where it is still listed.
    const was = refinement ? this.#items[this.#active] : undefined;
    const keep = was ? (was.dataset.symbol ?? was.dataset.file) : undefined;
    this.#active = -1;
    const files = this.#showFiles();
    if (files && results) {
      this.#hits = [];
      this.#files = results.files;
      this.#items = results.files.map((file, index) => fileItem(file, index));
      list.replaceChildren(...this.#items);
    } else {
      // Grouped by file, files in the order of their best hit; hits keep
      // their rank inside a file. Keyboard order is display order.
      const groups = new Map<string, SearchHit[]>();
      for (const hit of hits) groups.set(hit.file, [...(groups.get(hit.file) ?? []), hit]);
      this.#hits = [...groups.values()].flat();
      this.#files = [];
      this.#items = this.#hits.map((hit, index) => resultItem(hit, index));
      let at = 0;
      const children: HTMLElement[] = [];
      for (const [file, group] of groups) {
        const items = this.#items.slice(at, at + group.length);
        at += group.length;
        children.push(h('li', { class: 'result-group', 'data-file': file, role: 'presentation' },
          h('div', { class: 'group-head' }, h('span', { class: 'group-file' }, file), h('span', { class: 'muted' }, String(group.length))),
          h('ul', { class: 'group-hits', role: 'presentation' }, ...items)));
      }
      // A full first page may not be all: the rest on request.
      if (query && hits.length === this.#limit(query) && hits.length < RESULT_LIMIT) {
        children.push(h('li', { class: 'result-more', role: 'presentation' },
          h('button', { type: 'button', class: 'button', 'data-testid': 'more-results' }, 'More results')));
      }
      list.replaceChildren(...children);
    }
    if (keep !== undefined) {
      const again = this.#items.findIndex((item) => (item.dataset.symbol ?? item.dataset.file) === keep);
      if (again >= 0) this.#setActive(again);
    }
    this.#options.onResults?.(query, error === undefined ? results : undefined);
    const lanes = results ? lanesOf(results) : [];
    list.dataset.query = oneLine(query);
    list.dataset.mode = results?.mode ?? '';
    list.dataset.meaning = results?.params.meaning ?? '';
    list.dataset.lanes = lanes.join(' ');
    list.dataset.reading = reading?.state ?? '';
    list.dataset.view = files ? 'files' : 'symbols';
    status.classList.toggle('error', error !== undefined);
    if (error !== undefined) status.textContent = `Search failed: ${error}`;
    else if (!query) status.textContent = '';
    else if (hits.length === 0) status.textContent = `No symbols match “${query}”${results?.note ? ` — ${results.note}` : ''}`;
    else {
      const shown = files ? plural(results?.files.length ?? 0, 'file') : plural(hits.length, 'result');
      const count = `${shown}${!files && hits.length === this.#limit(query) ? ' (top matches)' : ''}`;
      const answered = lanes.length > 0 ? ` · by ${listed(lanes.map((l) => LANE_NAMES[l]))}` : '';
      status.textContent = `${count} · ${results?.mode ?? ''}${answered}${readingNote(reading)}${results?.note ? ` — ${results.note}` : ''}`;
    }
    status.dataset.reading = reading?.state ?? '';
  }
}

/** A search's lanes, as the list's `data-lanes` names them: those that found a shown hit. */
type Lane = 'words' | 'names' | 'trace' | 'graph' | Meaning;

const LANE_NAMES: Record<Lane, string> = {
  words: 'words', names: 'names', trace: 'the trace', graph: 'the graph', static: 'the static lane', minilm: 'MiniLM',
  minilm_candidates: 'MiniLM over the best candidates',
};

/** The lanes that found at least one of the results, in a fixed order. */
function lanesOf(results: SearchResults): Lane[] {
  const found = new Set<Lane>();
  for (const hit of results.hits) {
    const e = hit.explain;
    if (e.lexical_rank !== null) found.add('words');
    if (e.name_rank !== null) found.add('names');
    if (e.trace_rank !== null) found.add('trace');
    if (e.dense_rank !== null && results.params.meaning) found.add(results.params.meaning);
    if (e.graph) found.add('graph');
  }
  return (['words', 'names', 'trace', 'static', 'minilm_candidates', 'minilm', 'graph'] as const).filter((l) => found.has(l));
}

/** `a`, `a and b`, `a, b and c`. */
function listed(items: string[]): string {
  return items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** What the status line says of MiniLM's reading of the question. */
function readingNote(reading: Reading | undefined): string {
  switch (reading?.state) {
    case 'reading':
      return ` · MiniLM is reading the question${reading.detail ? ` ${reading.detail}` : ''}…`;
    case 'late':
      return ` · MiniLM could not read it in time${reading.detail ? ` (${reading.detail})` : ''}`;
    case 'failed':
      return ` · MiniLM failed${reading.detail ? `: ${reading.detail}` : ''}`;
    case 'cancelled':
      return reading.detail ? ` · MiniLM's reading was cancelled: ${reading.detail}` : '';
    case 'none':
      return reading.detail ? ` · ${reading.detail}` : '';
    default:
      return '';
  }
}

/** The lanes that found a hit, as short chips: `bm25 #2`, `dense #1 (0.61)`, `name`, `trace`, `via CALLS`, and its file's role where it is not source (`vendored`). */
function why(hit: SearchHit): HTMLElement[] {
  const e = hit.explain;
  const chips: [string, string][] = [];
  if (e.lexical_rank !== null) chips.push(['lexical', `bm25 #${e.lexical_rank}`]);
  if (e.dense_rank !== null) chips.push(['dense', `dense #${e.dense_rank}${e.similarity !== null ? ` ${e.similarity.toFixed(2)}` : ''}`]);
  if (e.name_rank !== null) chips.push(['name', `name ${hit.match ?? ''}`.trim()]);
  if (e.trace_rank !== null) chips.push(['trace', `trace #${e.trace_rank}`]);
  if (e.graph) chips.push(['graph', `via ${e.graph.edge}`]);
  if (e.role) chips.push(['role', e.role]);
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
  return h('li', {
    'data-testid': 'search-result',
    'data-index': index,
    'data-symbol': hit.symbol,
    role: 'option',
    'aria-selected': 'false',
    title: explainTitle(hit),
  },
    h('span', { class: `badge kind-${hit.kind}`, title: hit.kind }, KIND_BADGES[hit.kind] ?? hit.kind),
    h('span', { class: 'result-head' },
      symbolLabel({ name: hit.name, qualified_name: hit.symbol, kind: hit.kind }), h('span', { class: 'why' }, ...why(hit))),
    pathLabel(hit.file, `${hit.start_line}-${hit.end_line}`),
    snippetOf(hit),
  );
}

/** The hit's snippet, its matched words marked (the engine found them). */
function snippetOf(hit: SearchHit): HTMLElement | null {
  const { snippet } = hit;
  if (snippet.lines.length === 0) return null;
  const rows = snippet.lines.map((line, i) => {
    const marks = snippet.marks.filter(([at]) => at === i).sort((a, b) => a[1] - b[1]);
    const parts: (string | HTMLElement)[] = [];
    let column = 0;
    for (const [, start, end] of marks) {
      if (start < column) continue;
      parts.push(line.slice(column, start), h('mark', {}, line.slice(start, end)));
      column = end;
    }
    parts.push(line.slice(column));
    return h('div', { class: 'snippet-line', 'data-line': snippet.start_line + i }, ...parts);
  });
  return h('div', { class: 'snippet', 'data-testid': 'snippet' }, ...rows);
}

function fileItem(file: FileHit, index: number): HTMLElement {
  const best = file.symbols[0];
  const slash = file.file.lastIndexOf('/');
  return h('li', { 'data-testid': 'search-result', 'data-index': index, 'data-file': file.file, role: 'option', 'aria-selected': 'false' },
    h('span', { class: 'badge' }, 'file'),
    h('span', { class: 'result-head' },
      h('span', { class: 'sym', title: file.file },
        h('span', { class: 'sym-name' }, file.file.slice(slash + 1)),
        slash > 0 ? h('span', { class: 'sym-container', 'data-full': file.file.slice(0, slash) }, h('bdi', { dir: 'ltr' }, file.file.slice(0, slash))) : null),
      h('span', { class: 'why' }, ...file.symbols.map((s) => h('span', { class: 'lane' }, s.symbol.split(/[.:/]/).pop() ?? s.symbol)))),
    best ? pathLabel(file.file, `${best.start_line}-${best.end_line}`) : pathLabel(file.file),
  );
}

/** Scrolls `list` (only) so that `item` is in view. */
function scrollNearest(list: HTMLElement, item: HTMLElement): void {
  const box = list.getBoundingClientRect();
  const at = item.getBoundingClientRect();
  if (at.top < box.top) list.scrollTop -= box.top - at.top;
  else if (at.bottom > box.bottom) list.scrollTop += at.bottom - box.bottom;
}

/**
 * Says when meaning's progress brings a lane that reads the shown query
 * better: the static lane, MiniLM loaded (it reads each question), MiniLM's
 * whole index. The app and `<fathom-explorer>` run the shown query again then.
 */
export class MeaningUpgrades {
  /** The lane that read meaning in the shown results. */
  #serving: string | null = null;
  /** Whether MiniLM was still loading at the last report. */
  #loading = false;

  /** Whether `progress` brings such a lane. */
  upgraded(progress: EmbeddingProgress): boolean {
    const loaded = this.#loading && progress.state !== 'loading';
    this.#loading = progress.state === 'loading';
    if (progress.serving === this.#serving && !loaded) return false;
    this.#serving = progress.serving;
    return true;
  }

  /** A new index: nothing serves it yet. */
  reset(): void {
    this.#serving = null;
    this.#loading = false;
  }
}
