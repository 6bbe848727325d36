// <fathom-explorer>: the explorer as one element, for documentation sites that
// publish a prebuilt index beside their pages. It runs the same worker and
// engine as the app, in a shadow root so the host page's styles and ours stay
// apart.
//
//   <script type="module" src="fathom-explorer.js"></script>
//   <fathom-explorer bundle="repo.fathom" query="how are routes registered"></fathom-explorer>
//
// Attributes:
//   bundle   URL of a `.fathom` index bundle (same origin), opened as is;
//            or of a split bundle's folder, ending in `/` (`fathom index
//            --split -o DIR`): only its root is read on load, and each
//            search and file fetches the parts it needs, each once;
//   archive  or URL of a `.zip`, `.tar.gz` or `.tar`, indexed in the browser;
//   query    a search to show once the index is open;
//   ask-above  over a split bundle, the MB a symbol's impact may fetch
//            before the reader is asked (default 5: a hub's walk reads
//            much of the graph);
//   offline  over a split bundle, keep all of it in the browser once it is
//            open (an offline demo): every question is then answered with
//            the network off; what questions fetched is kept either way
//            (the page and its scripts are the site's to keep);
//   theme    `dark` or `light` (default: the reader's system setting);
//   model    URL of the embedding model folder: adds semantic search with
//            the static table (a few MB; without it search is lexical, and
//            nothing more is downloaded). A bundle written with static
//            vectors (`fathom index -o` does by default) is searched with
//            them as they are; without, the chunks are embedded on load;
//   minilm   with model: MiniLM reads queries too (45 MB more), on the
//            faster of the reader's CPU and WebGPU, timed: over the whole
//            index where the bundle holds MiniLM's vectors or that lane
//            embeds the rest within two minutes, else over each question's
//            candidates. Words answer first either way.
// Events: `fathom-ready` (detail: the index summary), `fathom-error`
// (detail: { message }). The element's `state` attribute is `loading`,
// `ready` or `error`; `data-offline` is `keeping`, `kept` or `failed`
// with `offline`; `data-static-from` says whether the static lane's
// vectors came with the bundle (`bundle`) or were made from its texts
// (`texts`).
import { FathomClient } from './client';
import type { IndexSummary, SearchHit } from './protocol';
import { CodeView } from './ui/codeview';
import { h } from './ui/dom';
import { Navigator } from './ui/navigator';
import { MeaningUpgrades, SearchPanel } from './ui/search';
import { SymbolPanel } from './ui/symbolpanel';
import uiCss from './ui/ui.css?inline';

const COMPONENT_CSS = `
:host { display: block; height: 560px; border: 1px solid var(--border); border-radius: 6px; overflow: clip;
  background: var(--bg); color: var(--fg); font: 13px/1.45 var(--sans); text-align: left; }
:host([hidden]) { display: none; }
.fx { display: grid; grid-template-rows: auto auto minmax(0, 1fr); grid-template-columns: minmax(0, 1fr); height: 100%; overflow: clip; container-type: inline-size; }
.fx-bar { display: flex; gap: 8px; align-items: center; padding: 6px 10px; background: var(--bg-bar); border-bottom: 1px solid var(--border); }
.fx-title { font: 600 12px var(--mono); color: var(--fg-strong); white-space: nowrap; }
.fx-bar .search-input { padding: 5px 8px; flex: 1 1 16ch; min-width: 12ch; }
.fx-status { flex: 0 1 auto; min-width: 0; overflow: hidden; text-overflow: ellipsis; color: var(--fg-muted); font: 11px var(--mono); white-space: nowrap; }
.fx-error { margin: 0; padding: 8px 12px; background: var(--danger-bg); color: var(--danger-fg); font: 12px var(--mono); white-space: pre-wrap; }
.fx-error[hidden] { display: none; }
.fx-body { display: grid; grid-template-columns: minmax(200px, 38%) minmax(0, 1fr); grid-template-rows: minmax(0, 1fr); min-height: 0; }
.fx-results { display: flex; flex-direction: column; min-width: 0; min-height: 0; border-right: 1px solid var(--border); background: var(--bg-panel); }
.fx-results .search-status { padding-top: 6px; }
.fx-code { display: flex; flex-direction: column; min-width: 0; min-height: 0; }
.fx-filters { padding: 6px 10px 0; }
/* On a phone, or in a narrow column of a docs page: results above the code, each the full width. */
@container (max-width: 600px) {
  .fx-body { grid-template-columns: minmax(0, 1fr); grid-template-rows: minmax(0, 2fr) minmax(0, 3fr); }
  .fx-results { border-right: 0; border-bottom: 1px solid var(--border); }
  .fx-title { display: none; }
  /* The query the full width, the index's status on a line of its own below it. */
  .fx-bar { flex-wrap: wrap; row-gap: 3px; }
  .fx-bar .search-input, .fx-status { flex: 1 1 100%; }
}
`;

/** The stylesheets, built once and shared by every explorer on the page. */
let sheets: CSSStyleSheet[] | undefined;
function styleSheets(): CSSStyleSheet[] {
  if (!sheets) {
    sheets = [uiCss, COMPONENT_CSS].map((css) => {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(css);
      return sheet;
    });
  }
  return sheets;
}

export class FathomExplorer extends HTMLElement {
  static readonly observedAttributes = ['bundle', 'archive', 'query', 'model', 'minilm', 'theme'];

  #client: FathomClient | undefined;
  #ui: ReturnType<FathomExplorer['build']> | undefined;
  /** Increases with every load, so an older load's answer is dropped. */
  #generation = 0;
  /** With `model`: starts the embedding lanes, at the first query. */
  #startMeaning: (() => void) | undefined;

  /** The summary of the open index, once `state` is `ready`. */
  summary: IndexSummary | undefined;

  connectedCallback(): void {
    this.#ui ??= this.build();
    this.#applyTheme();
    void this.#load();
  }

  /** `theme="dark"` or `"light"` fixes the colours; otherwise they follow the reader's system setting. */
  #applyTheme(): void {
    const theme = this.getAttribute('theme');
    this.style.colorScheme = theme === 'dark' || theme === 'light' ? theme : '';
  }

  disconnectedCallback(): void {
    this.#generation++;
    this.#startMeaning = undefined;
    this.#client?.dispose();
    this.#client = undefined;
  }

  attributeChangedCallback(name: string, previous: string | null, value: string | null): void {
    if (!this.isConnected || !this.#ui || previous === value) return;
    if (name === 'query') this.search(value ?? '');
    else if (name === 'theme') this.#applyTheme();
    else void this.#load();
  }

  /** Shows a search in the explorer, as if typed. */
  search(query: string): void {
    const ui = this.#ui;
    if (!ui) return;
    ui.input.value = query;
    ui.search.refresh();
  }

  /** The underlying client, for pages that want more than the element shows. */
  get client(): FathomClient | undefined {
    return this.#client;
  }

  private build() {
    const shadow = this.attachShadow({ mode: 'open' });
    shadow.adoptedStyleSheets = styleSheets();
    const input = h('input', {
      type: 'search', class: 'search-input', placeholder: 'Search this code…', 'aria-label': 'Search symbols',
      autocomplete: 'off', spellcheck: 'false', disabled: true, 'data-testid': 'search-input',
    });
    const mode: HTMLSelectElement = h('select', { class: 'search-mode', 'aria-label': 'Search mode', hidden: true },
      h('option', { value: 'hybrid', selected: true }, 'hybrid'), h('option', { value: 'lexical' }, 'lexical'));
    const filters = h('div', { class: 'search-filters fx-filters', 'data-testid': 'search-filters' },
      h('select', { 'data-filter': 'language', 'aria-label': 'Language filter' }, h('option', { value: '' }, 'any language')),
      h('select', { 'data-filter': 'tests', 'aria-label': 'Tests filter' },
        h('option', { value: 'include' }, 'with tests'), h('option', { value: 'exclude' }, 'no tests'), h('option', { value: 'only' }, 'tests only')),
      h('input', { type: 'text', 'data-filter': 'path', placeholder: 'path or glob', 'aria-label': 'Path filter', spellcheck: 'false' }));
    const status = h('span', { class: 'fx-status', 'aria-live': 'polite', 'data-testid': 'index-status' });
    const error = h('p', { class: 'fx-error', role: 'alert', 'data-testid': 'error', hidden: true });
    const list = h('ol', { class: 'results', role: 'listbox', 'aria-label': 'Search results', tabindex: 0, 'data-testid': 'search-results' });
    const searchStatus = h('div', { class: 'search-status', 'aria-live': 'polite' });
    const codeRoot = h('section', { class: 'code-pane', 'data-testid': 'code-view' },
      h('header', { class: 'code-header' },
        h('nav', { class: 'code-path', 'aria-label': 'File path', 'data-testid': 'code-path' }),
        h('span', { class: 'code-meta' })),
      h('div', { class: 'code-scroll' }, h('div', { class: 'code' })));
    const panelRoot = h('section', { class: 'symbol-panel', 'data-testid': 'symbol-panel', 'aria-label': 'Symbol', hidden: true });
    codeRoot.append(panelRoot);
    shadow.append(h('div', { class: 'fx' },
      h('header', { class: 'fx-bar' }, h('span', { class: 'fx-title' }, '◆ Fathom'), input, mode, status),
      error,
      h('div', { class: 'fx-body' },
        h('section', { class: 'fx-results' }, filters, searchStatus, list),
        h('section', { class: 'fx-code' }, codeRoot))));

    const showError = (message: string) => {
      error.textContent = message;
      error.hidden = false;
    };
    let opener: Navigator | undefined;
    const code = new CodeView(codeRoot, (path, line, column) => void opener?.goToDefinition(path, line, column));
    const panel = new SymbolPanel(panelRoot, {
      open: (node) => void opener?.openNode(node),
      impact: (symbol, depth, allowBytes) => {
        const askAbove = Number(this.getAttribute('ask-above') ?? NaN);
        const allowed = allowBytes ?? (Number.isFinite(askAbove) && askAbove >= 0 ? askAbove * 1e6 : undefined);
        return this.#need().impact(symbol, depth, allowed === undefined ? {} : { allowBytes: allowed });
      },
      references: (symbol) => this.#need().references(symbol),
      openAt: (file, line, detail) => void opener?.open(file, { start: line, end: line }, detail),
    });
    const search = new SearchPanel({
      input, list, status: searchStatus, mode, filters,
      // Over a split bundle each result shown is fetched: ten first, as a search page shows, and the rest on request.
      firstPage: () => (this.#inParts() ? 10 : undefined),
      search: (query, limit, searchMode, filter, onRefined) => {
        // The first query starts reading meaning (the static table's fetch): a reader who never searches never downloads it.
        const start = this.#startMeaning;
        this.#startMeaning = undefined;
        start?.();
        return this.#need().search(query, { k: limit, mode: searchMode, filter }, onRefined);
      },
      onOpen: (hit: SearchHit) => void opener?.openHit(hit),
      onOpenFile: (file) => {
        const best = file.symbols[0];
        void opener?.open(file.file, best ? { start: best.start_line, end: best.end_line } : { start: 1, end: 1 }, file.file, best?.symbol);
      },
    });
    const open = (): Navigator => new Navigator(this.#need(), code, codeRoot, panel, { error: showError });
    // Ctrl/Cmd+K inside the element focuses its search box.
    shadow.addEventListener('keydown', (event) => {
      const key = event as KeyboardEvent;
      if ((key.ctrlKey || key.metaKey) && key.key.toLowerCase() === 'k') {
        key.preventDefault();
        input.focus();
        input.select();
      }
    });
    return {
      input, search, code, panel, status, error, showError, mode,
      setClient: () => {
        opener = open();
      },
    };
  }

  /** Whether `bundle` names a split bundle's folder (a URL ending in `/`). */
  #inParts(): boolean {
    const bundle = this.getAttribute('bundle');
    return bundle !== null && new URL(bundle, document.baseURI).pathname.endsWith('/');
  }

  #need(): FathomClient {
    if (!this.#client) throw new Error('the explorer has no index open');
    return this.#client;
  }

  async #load(): Promise<void> {
    const ui = this.#ui;
    if (!ui) return;
    const generation = ++this.#generation;
    const bundle = this.getAttribute('bundle');
    const archive = this.getAttribute('archive');
    const source = bundle ?? archive;
    this.#client?.dispose();
    this.#client = undefined;
    this.summary = undefined;
    ui.error.hidden = true;
    ui.input.disabled = true;
    ui.code.clear();
    ui.panel.hide();
    if (!source) {
      this.#fail('Nothing to explore: set the bundle (a .fathom file) or archive attribute.');
      return;
    }
    const url = new URL(source, document.baseURI);
    const name = decodeURIComponent(url.pathname.split('/').filter(Boolean).pop() ?? url.pathname);
    this.setAttribute('state', 'loading');
    ui.status.textContent = `Loading ${name}…`;
    const model = this.getAttribute('model');
    // A split bundle is read in parts, as questions need them, by the viewer (the engine without grammars).
    const inParts = this.#inParts();
    const client = new FathomClient({ ...(model ? { modelBase: new URL(model, document.baseURI).href } : {}), viewer: inParts });
    this.#client = client;
    ui.setClient();
    try {
      const summary = inParts ? await client.openSplit(url.href) : await this.#fetchWhole(url, bundle !== null, client, name, generation);
      if (generation !== this.#generation) return;
      this.summary = summary;
      ui.search.setLanguages(Object.keys(summary.languages));
      ui.search.enable();
      // Without a model nothing can read a query's meaning, whatever the
      // bundle holds, nor without vectors in a split bundle: search reads
      // words, and says so once, here, rather than under every answer. A
      // split bundle's meaning needs only the model's tokenizer; its lane
      // comes in parts with the questions.
      const meaning = Boolean(model) && (!inParts || ('meaning' in summary && summary.meaning));
      ui.mode.value = meaning ? 'hybrid' : 'lexical';
      const reads = meaning ? '' : model ? ' · search by words (a split bundle)' : ' · search by words (no model on this page)';
      ui.status.textContent = `${name} · ${summary.files.toLocaleString('en-US')} files · ${summary.symbols.toLocaleString('en-US')} symbols${reads} · ready`;
      this.dataset.search = meaning ? 'hybrid' : 'lexical';
      this.setAttribute('state', 'ready');
      this.#startMeaning = undefined;
      if (meaning && !inParts) {
        const upgrades = new MeaningUpgrades();
        client.onEmbedding((progress) => {
          if (progress.staticFrom) this.dataset.staticFrom = progress.staticFrom;
          if (upgrades.upgraded(progress)) ui.search.refresh();
        });
        // The static table alone (a few MB) unless the reader asks for MiniLM
        // (45 MB of weights, and WebGPU or patience to embed what a bundle
        // lacks), and only once a query is asked.
        const minilm = this.hasAttribute('minilm');
        this.#startMeaning = () => void client.startEmbedding('auto', { minilm }).then(
          (progress) => {
            if (progress.serving === null && progress.staticError) ui.showError(`Semantic search is unavailable: ${progress.staticError}`);
          },
          (error: unknown) => ui.showError(`Semantic search is unavailable: ${messageOf(error)}`),
        );
      }
      const query = this.getAttribute('query');
      if (query) this.search(query);
      this.dispatchEvent(new CustomEvent('fathom-ready', { detail: summary }));
      if (inParts && this.hasAttribute('offline')) void this.#keepOffline(client, ui.status.textContent, generation);
    } catch (error) {
      if (generation !== this.#generation) return;
      this.#fail(`Could not open ${name}: ${messageOf(error)}`);
    }
  }

  /** Keeps the split bundle for offline use, saying how far it is in the status line. */
  async #keepOffline(client: FathomClient, said: string, generation: number): Promise<void> {
    const ui = this.#ui;
    if (!ui) return;
    const current = () => generation === this.#generation;
    this.dataset.offline = 'keeping';
    try {
      // Said at each tenth of the way, not at each part: the line is read aloud as it changes.
      let tenth = -1;
      const kept = await client.keepOffline((p) => {
        const now = Math.floor((10 * p.done) / Math.max(p.total, 1));
        if (!current() || now === tenth) return;
        tenth = now;
        ui.status.textContent = `${said} · keeping it offline: ${p.done.toLocaleString('en-US')} of ${p.total.toLocaleString('en-US')} parts`;
      });
      if (!current()) return;
      ui.status.textContent = `${said} · kept offline (${(kept.bytes / 1e6).toFixed(1)} MB)`;
      this.dataset.offline = 'kept';
    } catch (error) {
      if (!current()) return;
      ui.status.textContent = said;
      this.dataset.offline = 'failed';
      ui.showError(`Could not keep ${this.getAttribute('bundle') ?? 'the bundle'} offline: ${messageOf(error)}`);
    }
  }

  /** Fetches a whole bundle or an archive and opens it. */
  async #fetchWhole(url: URL, bundle: boolean, client: FathomClient, name: string, generation: number): Promise<IndexSummary> {
    const ui = this.#ui;
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url.href} answered HTTP ${response.status}`);
    if (bundle && (response.headers.get('content-type') ?? '').startsWith('text/html')) {
      throw new Error(`${url.href} answered with an HTML page, not a bundle: is the path right?`);
    }
    const blob = await response.blob();
    if (bundle) return client.importBundle(new Uint8Array(await blob.arrayBuffer()));
    return client.indexZip(blob, name, (p) => {
      if (ui && generation === this.#generation) ui.status.textContent = `Indexing ${name}: ${p.stage} ${p.done}/${p.total}`;
    });
  }

  #fail(message: string): void {
    this.#ui?.showError(message);
    if (this.#ui) this.#ui.status.textContent = 'not loaded';
    this.setAttribute('state', 'error');
    this.dispatchEvent(new CustomEvent('fathom-error', { detail: { message } }));
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

if (!customElements.get('fathom-explorer')) customElements.define('fathom-explorer', FathomExplorer);

declare global {
  interface HTMLElementTagNameMap {
    'fathom-explorer': FathomExplorer;
  }
}
