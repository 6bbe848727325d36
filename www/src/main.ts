// Wires the views to the Fathom engine running in a worker.
import { FathomClient, type Backend, type IndexSummary, type NodeRef, type Progress, type SearchHit } from '../../web/src/index';
import { EmbeddingBadge } from './embedding';
import { ErrorBanner } from './banner';
import { CodeView, type LineRange } from '../../web/src/ui/codeview';
import { Navigator } from '../../web/src/ui/navigator';
import { byTestId, h, plural, required } from '../../web/src/ui/dom';
import { type AnswerNode, answerGraph } from './answergraph';
import { setupDropZone } from './dropzone';
import { BudgetDeclined, BudgetView, memoryBudget } from './budget';
import { FeatureCardView } from './featurecard';
import { TestsForView } from './testsfor';
import { GraphMapView } from './graphmap';
import { Library, sha256, type LibraryEntry } from './library';
import { ProgressView } from './progress';
import { QueryConsole } from './queryconsole';
import { QuickOpen } from './quickopen';
import { MeaningUpgrades, SearchPanel } from '../../web/src/ui/search';
import { SymbolPanel } from '../../web/src/ui/symbolpanel';
import { renderSummary } from './summary';
import { setupTheme } from './theme';
import '../../web/src/ui/ui.css';
import './style.css';

/** Mirrored on <body data-state> (the markup starts in 'idle'). */
type AppState = 'idle' | 'indexing' | 'ready' | 'error';

const DEMO_URL = './demo/fathom.zip';
const DEMO_NAME = 'fathom.zip';

const client = new FathomClient();
const params = new URLSearchParams(location.search);
/**
 * `?backend=cpu|webgpu` pins where MiniLM runs and has it embed every chunk
 * (by default it runs on the faster lane, timed, and embeds every chunk
 * where that takes under `?whole-within=SECONDS`, 120 by default);
 * `?embed=static` reads meaning with the static lane alone; `?embed=off`
 * keeps search lexical.
 */
const backend = (params.get('backend') ?? 'auto') as Backend;
const wholeWithin = params.get('whole-within');
const wholeWithinSeconds = wholeWithin !== null && Number.isFinite(Number(wholeWithin)) ? Number(wholeWithin) : undefined;
const embeddingOn = params.get('embed') !== 'off';
const minilmOn = params.get('embed') !== 'static';
// An automation handle for tests and the devtools console.
(globalThis as { fathom?: FathomClient }).fathom = client;
// This page exists to index: its parse workers start while a person picks an archive.
client.prepareIndexing().catch(() => undefined);
const banner = new ErrorBanner(byTestId('error-banner'));
const progress = new ProgressView(required('#progress'));
const summaryRoot = byTestId('summary');
const codeView = new CodeView(byTestId('code-view'), (path, line, column) => void opener.goToDefinition(path, line, column));
const dropZone = byTestId('drop-zone');
const budgetView = new BudgetView(byTestId('budget'));
const budget = memoryBudget(params);
const demoButton = byTestId<HTMLButtonElement>('demo-button');
const fileInput = byTestId<HTMLInputElement>('archive-input');
const folderInput = byTestId<HTMLInputElement>('folder-input');
const cancelButton = byTestId<HTMLButtonElement>('cancel-button');
const statusLine = required('#status-line');
const sidebarToggle = byTestId<HTMLButtonElement>('sidebar-toggle');

/**
 * The sidebar (drop zone, library, progress, summary) is open while nothing is
 * indexed or an archive is being indexed; an open index folds it away so that
 * results and code get the width, and the top bar's toggle, which says what
 * was indexed, opens it on demand.
 */
function showSidebar(open: boolean): void {
  document.body.dataset.sidebar = open ? 'open' : 'closed';
  sidebarToggle.setAttribute('aria-expanded', String(open));
}
sidebarToggle.addEventListener('click', () => showSidebar(document.body.dataset.sidebar === 'closed'));
showSidebar(true);

const search = new SearchPanel({
  input: byTestId<HTMLInputElement>('search-input'),
  list: byTestId('search-results'),
  status: required('#search-status'),
  search: (query, limit, mode, filter, onRefined) => client.search(query, { k: limit, mode, filter }, onRefined),
  mode: byTestId<HTMLSelectElement>('search-mode'),
  filters: byTestId('search-filters'),
  onOpen: (hit) => void openHit(hit),
  onOpenFile: (file) => {
    const best = file.symbols[0];
    void openLocation(file.file, best ? { start: best.start_line, end: best.end_line } : { start: 1, end: 1 },
      best ? `${best.kind} ${best.symbol} · ${file.file}:${best.start_line}-${best.end_line}` : file.file, best?.symbol);
  },
  onResults: (query) => resultsGraph.show(query),
});

/** The card a results graph is read from is small: its Markdown is not shown. */
const GRAPH_BUDGET = 1000;

/**
 * The search's top results as a graph, in place of the list while "graph" is
 * ticked: the card's symbols for the query, what links them, and the edges
 * between them, drawn as every answer graph is.
 */
const resultsGraph = (() => {
  const toggle = byTestId<HTMLInputElement>('graph-view-toggle');
  const list = byTestId('search-results');
  const root = byTestId('results-graph');
  let generation = 0;
  let shown = '';
  const show = (query: string): void => {
    shown = query;
    const on = toggle.checked && query !== '';
    root.hidden = !on;
    list.hidden = on;
    if (!on) return;
    const asked = ++generation;
    root.dataset.state = 'running';
    void client.featureCard(query, GRAPH_BUDGET).then((card) => {
      if (asked !== generation) return;
      const nodes: AnswerNode[] = [
        ...card.symbols.map((s) => ({ ref: s.symbol, role: 'symbol' as const })),
        ...card.connectors.map((ref) => ({ ref, role: 'connector' as const })),
      ];
      root.replaceChildren(
        h('p', { class: 'muted' }, `The ${plural(card.symbols.length, 'best result')} and ${plural(card.connectors.length, 'symbol')} linking them`),
        card.edges.length > 0
          ? answerGraph(nodes, card.edges, (node) => void openNode(node), 'results-graph-svg')
          : h('p', { class: 'muted' }, 'No edges run between the best results.'),
      );
      root.dataset.state = 'ready';
    }, (error: unknown) => {
      if (asked !== generation) return;
      root.replaceChildren(h('p', { class: 'query-error' }, error instanceof Error ? error.message : String(error)));
      root.dataset.state = 'failed';
    });
  };
  toggle.addEventListener('change', () => show(shown || byTestId<HTMLInputElement>('search-input').value.trim()));
  return { show };
})();

const quickOpen = new QuickOpen(
  () => client.files(),
  (path) => void openLocation(path, { start: 1, end: 1 }, path),
);

// Ctrl/Cmd+K: search; Ctrl/Cmd+P: open a file by name.
document.addEventListener('keydown', (event) => {
  // Shift+F12 (as in VS Code): references to the open symbol.
  if (event.key === 'F12' && event.shiftKey && symbolPanel.findReferences()) {
    event.preventDefault();
    return;
  }
  if (!(event.ctrlKey || event.metaKey) || event.altKey) return;
  const key = event.key.toLowerCase();
  if (key === 'k') {
    event.preventDefault();
    const input = byTestId<HTMLInputElement>('search-input');
    input.focus();
    input.select();
  } else if (key === 'p' && indexed) {
    event.preventDefault();
    void quickOpen.open();
  }
});

const symbolPanel = new SymbolPanel(byTestId('symbol-panel'), {
  open: (node) => void openNode(node),
  showInMap: (symbol) =>
    void focusMapOn(symbol).catch((error: unknown) => banner.show(`Could not show ${symbol} on the map: ${messageOf(error)}`)),
  impact: (symbol, depth) => client.impact(symbol, depth),
  references: (symbol) => client.references(symbol),
  openAt: (file, line, detail) => void openLocation(file, { start: line, end: line }, detail),
});

// ---- Views: code and map ----------------------------------------------------

type View = 'code' | 'map' | 'card' | 'tests';
const viewTabs = [...document.querySelectorAll<HTMLButtonElement>('.view-tab')];
const views = [...document.querySelectorAll<HTMLElement>('.view')];
const graphMap = new GraphMapView(byTestId('graph-view'), (target) => {
  void client.symbol(target.key).then(
    (context) => openNode(context.symbol),
    (error: unknown) => banner.show(`Could not open ${target.key}: ${messageOf(error)}`),
  );
});
/** The map of the current index, fetched when the map is first shown. */
let mapLoaded: Promise<void> | undefined;
let indexed = false;

function ensureMap(): Promise<void> {
  if (!indexed) return Promise.resolve();
  mapLoaded ??= client.graphMap().then(
    (map) => graphMap.load(map),
    (error: unknown) => {
      mapLoaded = undefined;
      banner.show(`Could not draw the map: ${messageOf(error)}`);
    },
  );
  return mapLoaded;
}

function currentView(): View {
  return (viewTabs.find((t) => t.getAttribute('aria-selected') === 'true')?.dataset.view ?? 'code') as View;
}

async function showView(view: View): Promise<void> {
  for (const tab of viewTabs) tab.setAttribute('aria-selected', String(tab.dataset.view === view));
  for (const pane of views) pane.hidden = pane.dataset.view !== view;
  document.body.dataset.view = view;
  if (view === 'map') {
    await ensureMap();
    graphMap.resize();
  }
}

for (const tab of viewTabs) tab.addEventListener('click', () => void showView(tab.dataset.view as View));

const featureCard = new FeatureCardView(byTestId('feature-card'), {
  build: (query, budget) => client.featureCard(query, budget),
  open: (node) => void openNode(node),
  showInMap: (keys) => void showView('map').then(() => graphMap.focus(keys)),
});
const testsFor = new TestsForView(byTestId('tests-for'), {
  testsFor: (change) => client.testsFor(change),
  open: (node) => void openNode(node),
  showInMap: (keys) => void showView('map').then(() => graphMap.focus(keys)),
});
const cardButton = byTestId<HTMLButtonElement>('card-button');
cardButton.addEventListener('click', () => {
  const query = byTestId<HTMLInputElement>('search-input').value.trim();
  if (!query) return;
  void showView('card');
  void featureCard.show(query);
});

/** Focuses the map on a symbol and the symbols it calls and is called by. */
async function focusMapOn(symbol: string): Promise<void> {
  const context = await client.symbol(symbol);
  const keys = [
    context.symbol.qualified_name,
    ...context.callers.map((hop) => hop.from.qualified_name),
    ...context.callees.map((hop) => hop.to.qualified_name),
    ...context.members.map((m) => m.qualified_name),
  ];
  await showView('map');
  graphMap.focus(keys);
}
(globalThis as { fathomMap?: { focus(symbol: string): Promise<void>; view: GraphMapView } }).fathomMap = {
  focus: focusMapOn,
  view: graphMap,
};

const queryConsole = new QueryConsole({
  input: byTestId<HTMLTextAreaElement>('query-input'),
  run: byTestId<HTMLButtonElement>('query-run'),
  error: byTestId('query-error'),
  result: byTestId('query-result'),
  tools: byTestId('query-tools'),
  query: (text) => client.query(text),
  schema: () => client.graphSchema(),
  showInMap: (keys) => {
    void showView('map').then(() => graphMap.focus(keys));
  },
});

setupTheme(byTestId<HTMLButtonElement>('theme-toggle'), () => graphMap.applyTheme());

const embedding = new EmbeddingBadge(byTestId('embed-status'), (lane) => {
  client.startEmbedding(lane).catch((error: unknown) => embedding.fail(messageOf(error)));
});
/** Search upgrades in place (static lane, then MiniLM's reading, then its whole index): the shown query runs again. */
const upgrades = new MeaningUpgrades();
/** The open index's summary, to label what the library keeps. */
let lastSummary: IndexSummary | undefined;
client.onEmbedding((progress) => {
  embedding.update(progress);
  if (upgrades.upgraded(progress)) search.refresh();
  if (progress.state === 'ready') {
    // Keep the vectors with the index, so a reopen needs no embedding.
    if (currentKey && lastSummary && repoName && progress.cached < progress.chunks) {
      void save(currentKey, repoName, lastSummary, true);
    }
  }
});

let busy = false;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function setState(state: AppState): void {
  document.body.dataset.state = state;
}

// A panic in the engine traps its wasm instance: the client replaces the
// worker, and the page says so. The index in that worker is gone; the
// library (IndexedDB), kept by this page, is untouched.
client.onCrash((error) => {
  currentKey = undefined;
  const message = messageOf(error);
  banner.show(`${message.charAt(0).toUpperCase()}${message.slice(1)}. Its index is gone: drop the archive again, or open it from the library.`);
  statusLine.textContent = 'No index open: the engine was restarted';
  sidebarToggle.hidden = true;
  showSidebar(true);
  delete statusLine.dataset.source;
  summaryRoot.replaceChildren();
  setState('error');
});
// `?test-hooks`: a way for the browser tests to make the engine panic.
if (params.has('test-hooks')) (globalThis as { fathomPanic?: () => Promise<void> }).fathomPanic = () => client.debugPanic();

function setBusy(value: boolean): void {
  busy = value;
  demoButton.disabled = value;
  fileInput.disabled = value;
  folderInput.disabled = value;
  cancelButton.hidden = !value;
  dropZone.classList.toggle('busy', value);
}

/** Set by Cancel: the indexing under way was stopped on purpose. */
let cancelled = false;
/** The indexing under way, settled once its page state is. */
let indexing: Promise<void> | undefined;

/** Stops the indexing under way, if any (Cancel, or another archive dropped). */
function stopIndexing(): void {
  // At the memory budget nothing has started: the open index stays.
  if (budgetView.decline()) return;
  cancelled = true;
  client.cancel();
}
cancelButton.addEventListener('click', stopIndexing);

// ---- The library: indexes kept in IndexedDB, keyed by the archive's hash --------

const library: Promise<Library | undefined> = Library.open().catch(() => undefined);
const recentList = byTestId('recent');
const exportButton = byTestId<HTMLButtonElement>('export-bundle');
const importInput = byTestId<HTMLInputElement>('import-bundle');
/** The library key of the open index, so embeddings can be saved into it. */
let currentKey: string | undefined;

async function renderRecent(): Promise<void> {
  const lib = await library;
  const entries = lib ? await lib.list() : [];
  recentList.replaceChildren(
    ...(entries.length === 0 ? [h('li', { class: 'muted' }, 'Indexes you open are kept here, in this browser only.')] : []),
    ...entries.map((e) => recentItem(e)),
  );
}

function recentItem(entry: LibraryEntry): HTMLElement {
  const open = h('button', { type: 'button', class: 'link', 'data-testid': 'recent-open' }, entry.name);
  open.addEventListener('click', () => void reopen(entry));
  const remove = h('button', { type: 'button', class: 'chip-button', title: 'Delete this index', 'aria-label': `Delete the index of ${entry.name}`, 'data-testid': 'recent-delete' }, '×');
  remove.addEventListener('click', () => void library.then((lib) => lib?.delete(entry.key)).then(renderRecent));
  const saved = new Date(entry.savedAt);
  const when = saved.toDateString() === new Date().toDateString()
    ? saved.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
    : saved.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
  const size = `${when} · ${(entry.bytes / 1e6).toFixed(1)} MB · ${entry.files} files${entry.embedded ? ' · embedded' : ''}`;
  return h('li', { 'data-key': entry.key, 'data-name': entry.name }, open, h('span', { class: 'muted' }, size), remove);
}

async function reopen(entry: LibraryEntry): Promise<void> {
  const bytes = await (await library)?.get(entry.key);
  if (!bytes) return;
  currentKey = entry.key;
  await indexWith(entry.name, async () => client.importBundle(bytes), { saved: true });
}

/** Saves the open index (with whatever embeddings it has) under `key`. */
async function save(key: string, name: string, summary: IndexSummary, embedded: boolean): Promise<void> {
  const lib = await library;
  if (!lib) return;
  try {
    await lib.put({ key, name, files: summary.files, symbols: summary.symbols, embedded }, await client.exportBundle());
    await renderRecent();
  } catch (error) {
    banner.show(`Could not keep the index in this browser: ${messageOf(error)}`);
  }
}

exportButton.addEventListener('click', () => {
  void client.exportBundle().then((bytes) => {
    const url = URL.createObjectURL(new Blob([bytes as BlobPart], { type: 'application/octet-stream' }));
    const a = h('a', { href: url, download: `${(repoName ?? 'index').replace(/\.(zip|tar\.gz|tgz|tar)$/, '')}.fathom` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }, (error: unknown) => banner.show(`Could not export the index: ${messageOf(error)}`));
});
importInput.addEventListener('change', () => {
  const file = importInput.files?.[0];
  importInput.value = '';
  if (!file) return;
  void (async () => {
    const bytes = new Uint8Array(await file.arrayBuffer());
    currentKey = await sha256(bytes);
    await indexWith(file.name, async () => client.importBundle(bytes));
  })();
});
void renderRecent();

function indexArchive(name: string, load: () => Promise<Blob>, scip: File[] = []): Promise<void> {
  const how = { saved: false };
  return indexWith(name, async (onProgress) => {
    // Cancel pressed while this runs outside the worker (hashing, the
    // library), or while the optional survey runs, must stop it before the
    // next request starts work on the fresh worker.
    const stopIfCancelled = (): void => {
      if (cancelled) throw new Error('cancelled');
    };
    const blob = await load();
    // The library keeps an archive indexed with a SCIP index apart from the
    // same archive without it.
    const key = await sha256(await new Blob([blob, ...scip]).arrayBuffer());
    currentKey = key;
    const kept = await (await library)?.get(key).catch(() => undefined);
    stopIfCancelled();
    if (kept) {
      // Indexed before: reopen from the library, no parsing.
      how.saved = true;
      return client.importBundle(kept);
    }
    // Over the memory budget, the user chooses what to index before anything starts.
    const plan = await client.plan(blob, name).catch(() => undefined);
    stopIfCancelled();
    const exclude = plan ? await budgetView.choose(name, plan, budget) : [];
    return client.indexZip(blob, name, onProgress, exclude, scip.map((file) => ({ name: file.name, file })), budget);
  }, how);
}

/**
 * Indexes with `run`. An archive dropped while another is indexing replaces
 * it: that one is stopped (a hostile or huge archive must not hold the
 * page), and this one starts once it has let go.
 */
async function indexWith(
  name: string,
  run: (onProgress: (p: Progress) => void) => Promise<IndexSummary>,
  how: { saved?: boolean; split?: boolean } = {},
): Promise<void> {
  while (busy && indexing) {
    const previous = indexing;
    stopIndexing();
    await previous;
  }
  const mine = indexOnce(name, run, how);
  indexing = mine;
  await mine;
}

async function indexOnce(
  name: string,
  run: (onProgress: (p: Progress) => void) => Promise<IndexSummary>,
  how: { saved?: boolean; split?: boolean },
): Promise<void> {
  setBusy(true);
  setState('indexing');
  banner.hide();
  progress.reset();
  cancelled = false;
  statusLine.textContent = `Indexing ${name}…`;
  sidebarToggle.hidden = true;
  showSidebar(true);
  try {
    const summary = await run((p) => progress.update(p));
    renderSummary(summaryRoot, summary);
    search.setLanguages(Object.keys(summary.languages));
    codeView.clear();
    symbolPanel.hide();
    indexed = true;
    quickOpen.reset();
    mapLoaded = undefined;
    graphMap.dispose();
    if (currentView() === 'map') void ensureMap().then(() => graphMap.resize());
    search.enable();
    queryConsole.enable();
    // A split bundle without vectors is searched by words, as the page says once here (and hybrid again after it);
    // one with the static lane by meaning too, its lane read in parts with the questions.
    const byWords = Boolean(how.split) && !('meaning' in summary && summary.meaning);
    const modeSelect = byTestId<HTMLSelectElement>('search-mode');
    if (byWords || modeSelect.dataset.split) modeSelect.value = byWords ? 'lexical' : 'hybrid';
    if (byWords) modeSelect.dataset.split = 'true';
    else delete modeSelect.dataset.split;
    // It answers search, files, symbols, their callers, callees, impact and references, and Cypher;
    // cards, tests for a change and the map read the whole index, and it is not the library's to keep.
    cardButton.disabled = Boolean(how.split);
    testsFor.enable(!how.split);
    exportButton.disabled = Boolean(how.split);
    statusLine.dataset.source = how.split ? 'split' : how.saved ? 'library' : 'indexed';
    if (!how.saved && !how.split && currentKey) void save(currentKey, name, summary, false);
    lastSummary = summary;
    const reads = byWords ? ' (search by words)' : '';
    statusLine.textContent = how.split ? `Opened ${name}, a split bundle read in parts${reads} · ready` : `Indexed ${name} · ready`;
    sidebarToggle.textContent = `${summary.files.toLocaleString('en-US')} files · ${summary.symbols.toLocaleString('en-US')} symbols`;
    sidebarToggle.title = 'Show or hide the drop zone, library, progress and summary';
    sidebarToggle.hidden = false;
    showSidebar(false);
    repoName = name;
    setState('ready');
    void followLink(parseLink(location.hash));
    if (embeddingOn && !how.split) {
      upgrades.reset();
      client.startEmbedding(backend, { minilm: minilmOn, wholeWithinSeconds }).catch((error: unknown) => embedding.fail(messageOf(error)));
    } else {
      embedding.off();
    }
  } catch (error) {
    progress.fail();
    if (error instanceof BudgetDeclined) {
      // Nothing started: whatever was open stays open.
      progress.reset();
      statusLine.textContent = `Did not index ${name}: it is over this tab's memory budget`;
      sidebarToggle.hidden = !indexed;
      setState(indexed ? 'ready' : 'idle');
    } else if (cancelled) {
      statusLine.textContent = `Cancelled indexing ${name}`;
      indexed = false;
      setState('idle');
    } else {
      banner.show(`Could not index ${name}: ${messageOf(error)}`);
      statusLine.textContent = `Failed to index ${name}`;
      setState('error');
    }
  } finally {
    setBusy(false);
  }
}

async function fetchDemo(): Promise<Blob> {
  const response = await fetch(DEMO_URL);
  if (!response.ok) throw new Error(`the demo archive is unavailable (HTTP ${response.status} for ${DEMO_URL})`);
  return response.blob();
}

// ---- Deep links: #repo=…&file=…&line=…&symbol=…&q=… -------------------------

interface Link {
  repo?: string | undefined;
  file?: string | undefined;
  line?: number | undefined;
  symbol?: string | undefined;
  q?: string | undefined;
}
let repoName: string | undefined;

function deepLink(link: Link): string {
  const params = new URLSearchParams();
  const repo = link.repo ?? repoName;
  if (repo) params.set('repo', repo);
  if (link.file) params.set('file', link.file);
  if (link.line) params.set('line', String(link.line));
  if (link.symbol) params.set('symbol', link.symbol);
  const q = link.q ?? byTestId<HTMLInputElement>('search-input').value.trim();
  if (q) params.set('q', q);
  return params.toString();
}

function parseLink(hash: string): Link {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const line = Number(params.get('line'));
  return {
    repo: params.get('repo') ?? undefined,
    file: params.get('file') ?? undefined,
    line: Number.isFinite(line) && line > 0 ? line : undefined,
    symbol: params.get('symbol') ?? undefined,
    q: params.get('q') ?? undefined,
  };
}

/** Applies a link's query, file and line to the open repository. */
async function followLink(link: Link): Promise<void> {
  if (!indexed) return;
  const input = byTestId<HTMLInputElement>('search-input');
  if (link.q !== undefined && link.q !== input.value.trim()) {
    input.value = link.q;
    search.refresh();
  }
  if (link.symbol) {
    const context = await client.symbol(link.symbol).catch(() => null);
    if (context) return openNode(context.symbol);
  }
  if (link.file) {
    const line = link.line ?? 1;
    await openLocation(link.file, { start: line, end: line }, `${link.file}:${line}`);
  }
}

/** The hash this page last wrote, so its own writes are not followed again. */
let writtenHash = '';
window.addEventListener('hashchange', () => {
  if (location.hash.replace(/^#/, '') !== writtenHash) void followLink(parseLink(location.hash));
});

function writeLink(link: Link): void {
  writtenHash = deepLink(link);
  history.replaceState(null, '', `#${writtenHash}`);
}

const opener = new Navigator(client, codeView, byTestId('code-view'), symbolPanel, {
  beforeOpen: () => {
    if (currentView() !== 'code') void showView('code');
  },
  opened: ({ file, line, symbol }) => writeLink({ file, line, symbol }),
  error: (message) => banner.show(message),
});
const openNode = (node: NodeRef): Promise<void> => opener.openNode(node);
const openHit = (hit: SearchHit): Promise<void> => opener.openHit(hit);
const openLocation = (file: string, lines: LineRange, detail: string, symbol?: string): Promise<void> =>
  opener.open(file, lines, detail, symbol);

setupDropZone(dropZone, { archive: fileInput, folder: folderInput }, (dropped) => {
  if (dropped.kind === 'folder' && dropped.files) {
    const files = dropped.files;
    currentKey = undefined;
    // A split bundle's folder (`fathom index --split`): opened in place, read in parts as questions need them.
    const top = `${dropped.name}/`;
    if (files.some((f) => f.path === `${top}root.fathom`)) {
      const inside = files.filter((f) => f.path.startsWith(top)).map((f) => ({ path: f.path.slice(top.length), file: f.file }));
      void indexWith(dropped.name, () => client.openSplitFiles(dropped.name, inside), { split: true });
      return;
    }
    void indexWith(dropped.name, (onProgress) => client.indexFiles(dropped.name, files, onProgress));
  } else if (dropped.archive) {
    const archive = dropped.archive;
    void indexArchive(dropped.name, async () => archive, dropped.scip);
  }
});
demoButton.addEventListener('click', () => void indexArchive(DEMO_NAME, fetchDemo));

// Offline: the service worker caches the app, the engine and the model.
// `?sw=off` leaves it out (the tests do, except the one about it).
if ('serviceWorker' in navigator && params.get('sw') !== 'off') {
  navigator.serviceWorker.register('./sw.js').catch((error: unknown) => {
    console.warn(`offline support is unavailable: ${messageOf(error)}`);
  });
}

// `?demo` (the address `make run` prints) opens the demo archive on load.
if (params.has('demo')) void indexArchive(DEMO_NAME, fetchDemo);
