// Wires the views to the Fathom engine running in a worker.
import { FathomClient, type Backend, type IndexSummary, type NodeRef, type Progress, type SearchHit } from '../../web/src/index';
import { EmbeddingBadge } from './embedding';
import { ErrorBanner } from './banner';
import { CodeView } from './codeview';
import { byTestId, required } from './dom';
import { setupDropZone } from './dropzone';
import { FeatureCardView } from './featurecard';
import { GraphMapView } from './graphmap';
import { ProgressView } from './progress';
import { QueryConsole } from './queryconsole';
import { QuickOpen } from './quickopen';
import { SearchPanel, citation } from './search';
import { SymbolPanel } from './symbolpanel';
import { renderSummary } from './summary';
import './style.css';

/** Mirrored on <body data-state> (the markup starts in 'idle'). */
type AppState = 'idle' | 'indexing' | 'ready' | 'error';

const DEMO_URL = './demo/fathom.zip';
const DEMO_NAME = 'fathom.zip';

const client = new FathomClient();
const params = new URLSearchParams(location.search);
/** `?backend=cpu|webgpu` pins where the model runs; `?embed=off` keeps search lexical. */
const backend = (params.get('backend') ?? 'auto') as Backend;
const embeddingOn = params.get('embed') !== 'off';
// An automation handle for tests and the devtools console.
(globalThis as { fathom?: FathomClient }).fathom = client;
const banner = new ErrorBanner(byTestId('error-banner'));
const progress = new ProgressView(required('#progress'));
const summaryRoot = byTestId('summary');
const codeView = new CodeView(byTestId('code-view'));
const dropZone = byTestId('drop-zone');
const demoButton = byTestId<HTMLButtonElement>('demo-button');
const fileInput = byTestId<HTMLInputElement>('file-input');
const folderInput = byTestId<HTMLInputElement>('folder-input');
const cancelButton = byTestId<HTMLButtonElement>('cancel-button');
const statusLine = required('#status-line');

const search = new SearchPanel({
  input: byTestId<HTMLInputElement>('search-input'),
  list: byTestId('search-results'),
  status: required('#search-status'),
  search: (query, limit, mode, filter) => client.search(query, { k: limit, mode, filter }),
  mode: byTestId<HTMLSelectElement>('search-mode'),
  filters: byTestId('search-filters'),
  onOpen: (hit) => void openHit(hit),
  onOpenFile: (file) => {
    const best = file.symbols[0];
    void openLocation(file.file, best ? { start: best.start_line, end: best.end_line } : { start: 1, end: 1 },
      best ? `${best.kind} ${best.symbol} · ${file.file}:${best.start_line}-${best.end_line}` : file.file, best?.symbol);
  },
});

const quickOpen = new QuickOpen(
  () => client.files(),
  (path) => void openLocation(path, { start: 1, end: 1 }, path),
);

// Ctrl/Cmd+K: search; Ctrl/Cmd+P: open a file by name.
document.addEventListener('keydown', (event) => {
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
});

// ---- Views: code and map ----------------------------------------------------

type View = 'code' | 'map' | 'card';
const viewTabs = [...document.querySelectorAll<HTMLButtonElement>('.view-tab')];
const views = [...document.querySelectorAll<HTMLElement>('.view')];
const graphMap = new GraphMapView(byTestId('graph-map'), (target) => {
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

const embedding = new EmbeddingBadge(byTestId('embed-status'));
client.onEmbedding((progress) => {
  embedding.update(progress);
  // Search upgrades to hybrid in place: the shown query runs again.
  if (progress.state === 'ready') search.refresh();
});

let busy = false;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function setState(state: AppState): void {
  document.body.dataset.state = state;
}

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
cancelButton.addEventListener('click', () => {
  cancelled = true;
  client.cancel();
});

function indexArchive(name: string, load: () => Promise<Blob>): Promise<void> {
  return indexWith(name, async (onProgress) => client.indexZip(await load(), name, onProgress));
}

async function indexWith(
  name: string,
  run: (onProgress: (p: Progress) => void) => Promise<IndexSummary>,
): Promise<void> {
  if (busy) return;
  setBusy(true);
  setState('indexing');
  banner.hide();
  progress.reset();
  cancelled = false;
  statusLine.textContent = `Indexing ${name}…`;
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
    cardButton.disabled = false;
    statusLine.textContent = `Indexed ${name}`;
    repoName = name;
    setState('ready');
    void followLink(parseLink(location.hash));
    if (embeddingOn) {
      client.startEmbedding(backend).catch((error: unknown) => embedding.fail(messageOf(error)));
    } else {
      embedding.off();
    }
  } catch (error) {
    progress.fail();
    if (cancelled) {
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

/** Increases with every opened hit, so a slow file load cannot override a later click. */
let openGeneration = 0;

/** Opens a graph node's definition in the code view. */
function openNode(node: NodeRef): Promise<void> {
  if (node.file === null) return Promise.resolve();
  const where = `${node.file}:${node.start_line}-${node.end_line}`;
  return openLocation(node.file, { start: node.start_line, end: node.end_line }, `${node.kind} ${node.qualified_name} · ${where}`, node.qualified_name);
}

function openHit(hit: SearchHit): Promise<void> {
  return openLocation(hit.file, { start: hit.start_line, end: hit.end_line }, `${hit.kind} ${hit.symbol} · ${citation(hit)}`, hit.symbol);
}

/** Shows `file` with `lines` highlighted, and `symbol`'s context in the panel when given. */
async function openLocation(file: string, lines: { start: number; end: number }, detail: string, symbol?: string): Promise<void> {
  const generation = ++openGeneration;
  if (currentView() !== 'code') void showView('code');
  try {
    if (!codeView.isShowing(file)) {
      const text = await client.file(file);
      if (generation !== openGeneration) return;
      if (text === undefined) throw new Error('the file is not in the index');
      codeView.load(file, text);
    }
    codeView.highlight(lines, detail);
    writeLink({ file, line: lines.start, symbol });
    if (symbol === undefined) {
      symbolPanel.hide();
      return;
    }
    // Callers and callees are extra: if they fail, the code still stands.
    const context = await client.symbol(symbol).catch(() => null);
    if (generation !== openGeneration) return;
    if (context) symbolPanel.show(context);
    else symbolPanel.hide();
  } catch (error) {
    banner.show(`Could not open ${file}: ${messageOf(error)}`);
  }
}

setupDropZone(dropZone, { archive: fileInput, folder: folderInput }, (dropped) => {
  if (dropped.kind === 'folder' && dropped.files) {
    const files = dropped.files;
    void indexWith(dropped.name, (onProgress) => client.indexFiles(dropped.name, files, onProgress));
  } else if (dropped.archive) {
    const archive = dropped.archive;
    void indexArchive(dropped.name, async () => archive);
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
