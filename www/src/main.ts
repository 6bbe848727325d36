// Wires the views to the Fathom engine running in a worker.
import { FathomClient, type Backend, type NodeRef, type SearchHit } from '../../web/src/index';
import { EmbeddingBadge } from './embedding';
import { ErrorBanner } from './banner';
import { CodeView } from './codeview';
import { byTestId, required } from './dom';
import { setupDropZone } from './dropzone';
import { GraphMapView } from './graphmap';
import { ProgressView } from './progress';
import { QueryConsole } from './queryconsole';
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
const statusLine = required('#status-line');

const search = new SearchPanel({
  input: byTestId<HTMLInputElement>('search-input'),
  list: byTestId('search-results'),
  status: required('#search-status'),
  search: (query, limit, mode) => client.search(query, { k: limit, mode }),
  mode: byTestId<HTMLSelectElement>('search-mode'),
  onOpen: (hit) => void openHit(hit),
});

const symbolPanel = new SymbolPanel(byTestId('symbol-panel'), {
  open: (node) => void openNode(node),
  showInMap: (symbol) =>
    void focusMapOn(symbol).catch((error: unknown) => banner.show(`Could not show ${symbol} on the map: ${messageOf(error)}`)),
  impact: (symbol, depth) => client.impact(symbol, depth),
});

// ---- Views: code and map ----------------------------------------------------

type View = 'code' | 'map';
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
  query: (text) => client.query(text),
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
  dropZone.classList.toggle('busy', value);
}

async function indexArchive(name: string, load: () => Promise<Blob>): Promise<void> {
  if (busy) return;
  setBusy(true);
  setState('indexing');
  banner.hide();
  progress.reset();
  statusLine.textContent = `Indexing ${name}…`;
  try {
    const summary = await client.indexZip(await load(), name, (p) => progress.update(p));
    renderSummary(summaryRoot, summary);
    codeView.clear();
    symbolPanel.hide();
    indexed = true;
    mapLoaded = undefined;
    graphMap.dispose();
    if (currentView() === 'map') void ensureMap().then(() => graphMap.resize());
    search.enable();
    queryConsole.enable();
    statusLine.textContent = `Indexed ${name}`;
    setState('ready');
    if (embeddingOn) {
      client.startEmbedding(backend).catch((error: unknown) => embedding.fail(messageOf(error)));
    } else {
      embedding.off();
    }
  } catch (error) {
    progress.fail();
    banner.show(`Could not index ${name}: ${messageOf(error)}`);
    statusLine.textContent = `Failed to index ${name}`;
    setState('error');
  } finally {
    setBusy(false);
  }
}

async function fetchDemo(): Promise<Blob> {
  const response = await fetch(DEMO_URL);
  if (!response.ok) throw new Error(`the demo archive is unavailable (HTTP ${response.status} for ${DEMO_URL})`);
  return response.blob();
}

/** Increases with every opened hit, so a slow file load cannot override a later click. */
let openGeneration = 0;

/** Opens a graph node's definition in the code view. */
function openNode(node: NodeRef): Promise<void> {
  if (node.file === null) return Promise.resolve();
  return openHit({
    symbol: node.qualified_name, name: node.name, kind: node.kind, language: '', file: node.file,
    start_line: node.start_line, end_line: node.end_line, start_byte: 0, end_byte: 0, score: 0, match: 'exact',
    explain: {
      lexical_rank: null, dense_rank: null, name_rank: null, trace_rank: null, bm25: null, similarity: null,
      matched_terms: [], lanes: { lexical: 0, dense: 0, name: 0, trace: 0 }, graph: null, chunk_lines: null,
    },
  });
}

async function openHit(hit: SearchHit): Promise<void> {
  const generation = ++openGeneration;
  if (currentView() !== 'code') void showView('code');
  try {
    if (!codeView.isShowing(hit.file)) {
      const text = await client.file(hit.file);
      if (generation !== openGeneration) return;
      if (text === undefined) throw new Error('the file is not in the index');
      codeView.load(hit.file, text);
    }
    codeView.highlight({ start: hit.start_line, end: hit.end_line }, `${hit.kind} ${hit.symbol} · ${citation(hit)}`);
    // Callers and callees are extra: if they fail, the code still stands.
    const context = await client.symbol(hit.symbol).catch(() => null);
    if (generation !== openGeneration) return;
    if (context) symbolPanel.show(context);
    else symbolPanel.hide();
  } catch (error) {
    banner.show(`Could not open ${hit.file}: ${messageOf(error)}`);
  }
}

setupDropZone(dropZone, fileInput, (file) => void indexArchive(file.name, async () => file));
demoButton.addEventListener('click', () => void indexArchive(DEMO_NAME, fetchDemo));

// `?demo` (the address `make run` prints) opens the demo archive on load.
if (params.has('demo')) void indexArchive(DEMO_NAME, fetchDemo);
