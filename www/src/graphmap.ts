// The repository map: every directory, file and definition drawn with sigma.js
// (WebGL) over a graphology graph. Positions come from the engine (a layout of
// the containment tree); ForceAtlas2 refines them in a web worker. The map
// shows directories and files when zoomed out and definitions as you zoom in,
// so it stays readable and smooth at 100,000 nodes.
//
// Two graphs: `#graph` holds every node and edge (the layout runs on it);
// sigma draws `#shown`, the nodes of the current level of detail inside the
// viewport (plus the focus and the hovered node), at most `SHOWN_BUDGET` of
// them. sigma writes every node of its graph into its WebGL buffers and draws
// them all on each frame, hidden or not, so hiding nodes alone saves nothing:
// a frame's cost follows what is on screen only if the graph holds only that.
import Graph from 'graphology';
import FA2Layout from 'graphology-layout-forceatlas2/worker';
import forceAtlas2 from 'graphology-layout-forceatlas2';
import Sigma from 'sigma';
import type { GraphMap } from '../../web/src/index';
import { h } from '../../web/src/ui/dom';
import { type Architecture, architecture, type Community, LEVEL_FILE } from './communities';
import { renderOverview } from './overview';

export interface MapTarget {
  key: string;
  file: string;
  line: number;
  kind: string;
}

type ColourBy = 'kind' | 'group' | 'community';
/** The map's levels: communities and their dependencies first, then files and definitions. */
type Level = 'architecture' | 'files';

/** Neighbours listed beside the map; the rest are counted. */
const MAX_LISTED = 60;

/** A rectangle in graph coordinates. */
interface Area {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

/** A stable number in [0, 1) for a node, so thinning keeps the same nodes as the view moves. */
function spread(node: string): number {
  return ((Number(node) * 2654435761) >>> 0) / 4294967296;
}

const KIND_COLOURS: Record<string, string> = {
  directory: '#6b7280',
  module: '#3794ff',
  package: '#8b5cf6',
  class: '#f59e0b',
  function: '#10b981',
  method: '#34d399',
  field: '#a78bfa',
  global_variable: '#f472b6',
  annotation: '#94a3b8',
};
const GROUP_PALETTE = [
  '#3794ff', '#f59e0b', '#10b981', '#ef4444', '#a78bfa', '#14b8a6', '#f472b6', '#eab308',
  '#60a5fa', '#fb923c', '#4ade80', '#c084fc', '#2dd4bf', '#fda4af', '#facc15', '#93c5fd',
];
const EDGE_COLOURS: Record<string, string> = {
  CALLS: '#4b8bd6',
  IMPORTS: '#7c6fd6',
  INHERITS: '#d6a04b',
  IMPLEMENTS: '#d6c24b',
  USES: '#4bd6a6',
  CONTAINS: '#555',
  HAS_METHOD: '#555',
  HAS_FIELD: '#555',
  DECORATES: '#d64b9a',
  OVERRIDES: '#d67a4b',
  TESTS: '#7bd64b',
  DECLARES: '#9a9a9a',
};
/** Edge types drawn at first; structure is shown by position instead. */
const DEFAULT_EDGES = new Set(['CALLS', 'IMPORTS', 'INHERITS', 'IMPLEMENTS']);
/** Camera ratio (1 = whole map) under which each level of detail appears. */
const LEVEL_RATIOS = [Infinity, Infinity, 0.45, 0.15];
/** The most nodes handed to sigma at once; past it the finest level shown is thinned evenly. */
const SHOWN_BUDGET = 20_000;
/** How far past each side of the viewport nodes are drawn, in viewports: small pans draw nothing new. */
const VIEW_MARGIN = 0.25;
/** How long ForceAtlas2 refines the layout, by graph size. */
const LAYOUT_MS = (nodes: number) => Math.min(8000, 1500 + nodes / 20);

/** Colours that follow the page's theme (CSS custom properties on <html>). */
function themeColours(): { label: string; dim: string } {
  // The variables hold light-dark() pairs, resolved only where they are
  // used: a probe element resolves them to the colours in effect.
  const probe = h('span', { style: 'color: var(--fg); background-color: var(--bg-raised); display: none' });
  document.body.append(probe);
  const style = getComputedStyle(probe);
  const colours = { label: style.color || '#d4d4d4', dim: style.backgroundColor || '#2f2f33' };
  probe.remove();
  return colours;
}

export class GraphMapView {
  readonly #root: HTMLElement;
  readonly #canvas: HTMLElement;
  readonly #legend: HTMLElement;
  readonly #status: HTMLElement;
  readonly #onOpen: (target: MapTarget) => void;
  /** Every node and edge of the repository. */
  #graph: Graph | undefined;
  /** What sigma draws: see the top of this file. */
  #shown: Graph | undefined;
  /** The widened viewport and the level the shown graph was last chosen for. */
  #shownFor: { area: Area | undefined; level: number } | undefined;
  #sigma: Sigma | undefined;
  #layout: FA2Layout | undefined;
  #map: GraphMap | undefined;
  #colourBy: ColourBy = 'kind';
  #edgeTypes = new Set(DEFAULT_EDGES);
  /** Draws every level whatever the zoom: the reference that `make bench` compares the level of detail with. */
  #allLevels = false;
  /** Nodes in focus (a symbol's neighbourhood, a search, a query's rows); empty: no focus. */
  #focus = new Set<string>();
  #hovered: string | undefined;
  #architecture: Architecture | undefined;
  /** Whether test code is grouped into the architecture (off: the production architecture alone). */
  #withTests = false;
  #testsToggle: HTMLInputElement | undefined;
  /** Counts overview drawings: only the latest is shown. */
  #overviewDraws = 0;
  /** The panel's inner size the overview was last drawn for. */
  #overviewSize: { width: number; height: number } | undefined;
  readonly #overview: HTMLElement;
  readonly #stage: HTMLElement;
  #level: Level = 'architecture';
  readonly #levelButtons = new Map<Level, HTMLButtonElement>();
  #colourSelect: HTMLSelectElement | undefined;
  /** The selected node (clicked, shown from the code, or picked in the list): the list beside the map names its neighbours. */
  #selected: string | undefined;
  readonly #list: HTMLElement;
  /** A frame is asked for to follow the layout's moves. */
  #layoutFrame = 0;
  #theme = themeColours();

  constructor(root: HTMLElement, onOpen: (target: MapTarget) => void) {
    this.#root = root;
    this.#onOpen = onOpen;
    this.#canvas = h('div', {
      class: 'map-canvas',
      'data-testid': 'map-canvas',
      tabindex: '0',
      role: 'application',
      'aria-label': 'Repository map: arrow keys pan, + and - zoom, 0 resets',
    });
    this.#canvas.addEventListener('keydown', (event) => this.#onKey(event));
    this.#legend = h('div', { class: 'map-legend' });
    this.#status = h('div', { class: 'map-status', 'data-testid': 'map-status', 'aria-live': 'polite' });
    // The map's text alternative: the selected node and its neighbours, as
    // buttons, so the graph can be walked from the keyboard or a reader.
    this.#list = h('section', { class: 'map-list', 'data-testid': 'map-list', 'aria-label': 'The selected node and its neighbours', 'aria-live': 'polite' });
    this.#overview = h('section', { class: 'map-overview', 'data-testid': 'map-overview', 'aria-label': 'Architecture: communities and their dependencies' });
    this.#stage = h('div', { class: 'map-stage' }, this.#canvas, this.#legend, this.#status);
    root.replaceChildren(this.#toolbar(), this.#overview, this.#stage, this.#list);
    // The overview is scaled to its panel: drawn again when the panel changes size.
    new ResizeObserver(() => this.#redrawOverview()).observe(this.#overview);
    this.#setLevel('architecture');
  }

  get nodeCount(): number {
    return this.#graph?.order ?? 0;
  }

  /** Replaces the map with a new repository's. */
  load(map: GraphMap): void {
    this.dispose();
    this.#map = map;
    const graph = new Graph({ type: 'directed', multi: false, allowSelfLoops: false });
    const { nodes } = map;
    // Small repositories get larger dots: there is room, and labels need it.
    const scale = nodes.key.length < 2000 ? 2 : nodes.key.length < 20000 ? 1.4 : 1;
    for (let i = 0; i < nodes.key.length; i++) {
      graph.addNode(String(i), {
        x: nodes.x[i],
        y: nodes.y[i],
        size: nodes.size[i]! * scale,
        label: nodes.label[i],
        level: nodes.level[i],
        kind: map.kinds[nodes.kind[i]!],
        group: nodes.group[i],
      });
    }
    const { edges } = map;
    for (let i = 0; i < edges.source.length; i++) {
      const source = String(edges.source[i]);
      const target = String(edges.target[i]);
      const type = map.edge_kinds[edges.kind[i]!];
      // One drawn edge per pair: the first type met wins (calls come before uses).
      if (!graph.hasEdge(source, target)) graph.addEdge(source, target, { type: 'arrow', edgeType: type, size: 0.6 });
    }
    this.#graph = graph;
    this.#group();
    this.#focus.clear();
    this.#select(undefined);
    this.#shown = new Graph({ type: 'directed', multi: false, allowSelfLoops: false });
    this.#sigma = new Sigma(this.#shown, this.#canvas, {
      renderEdgeLabels: false,
      labelRenderedSizeThreshold: 6,
      labelColor: { color: this.#theme.label },
      defaultEdgeType: 'arrow',
      minCameraRatio: 0.005,
      maxCameraRatio: 4,
      zIndex: true,
      // The map's tab may be hidden while it updates (a focus set from the code view).
      allowInvalidContainer: true,
      nodeReducer: (node, data) => this.#reduceNode(node, data),
      edgeReducer: (edge, data) => this.#reduceEdge(edge, data),
    });
    // The shown graph is a part of the whole: frame it by the whole's extent,
    // so nodes keep their place on screen as they come and go.
    this.#frame();
    this.#sigma.on('clickNode', ({ node }) => this.#open(node));
    // Hover reprocesses only what it changes.
    this.#sigma.on('enterNode', ({ node }) => this.#hover(node));
    this.#sigma.on('leaveNode', () => this.#hover(undefined));
    this.#sigma.getCamera().on('updated', () => this.#follow());
    // The layout moves nodes of the whole graph: follow it once a frame.
    graph.on('eachNodeAttributesUpdated', () => {
      this.#layoutFrame ||= requestAnimationFrame(() => {
        this.#layoutFrame = 0;
        this.#followLayout();
      });
    });
    this.#sync();
    this.#renderLegend();
    this.#startLayout();
    this.#status.textContent = `${graph.order.toLocaleString('en-US')} nodes, ${graph.size.toLocaleString('en-US')} edges`;
    this.#root.dataset.nodes = String(graph.order);
    this.#root.dataset.edges = String(graph.size);
  }

  /** Groups the map's files into communities, with or without test code, and draws the overview. */
  #group(): void {
    const [map, graph] = [this.#map, this.#graph];
    if (!map || !graph) return;
    const arch = architecture(map, { tests: this.#withTests });
    arch.communityOf.forEach((c, i) => graph.setNodeAttribute(String(i), 'community', c));
    this.#architecture = arch;
    if (this.#testsToggle) this.#testsToggle.disabled = arch.testFiles === 0;
    void this.#drawOverview();
  }

  /**
   * Draws the overview for the panel's size (laid out by ELK, which loads
   * the first time); a drawing started earlier is dropped when it ends.
   * The map's `data-communities` says when it is drawn, and its
   * `data-overview` says for which inner size ("drawing" while a drawing
   * is under way), so a reader can tell a stale drawing from a current one.
   */
  async #drawOverview(): Promise<void> {
    const arch = this.#architecture;
    if (!arch) return;
    const mine = ++this.#overviewDraws;
    const panel = this.#overview;
    const size = this.#overviewInner();
    this.#root.dataset.overview = 'drawing';
    try {
      const parts = await renderOverview(arch, GROUP_PALETTE, (c) => this.#zoomIntoCommunity(c), size);
      if (mine !== this.#overviewDraws || arch !== this.#architecture) return;
      panel.replaceChildren(...parts);
      this.#overviewSize = size;
      this.#root.dataset.overview = `${size.width}x${size.height}`;
      this.#root.dataset.communities = String(arch.communities.length);
      this.#root.dataset.tests = arch.testFiles === 0 ? 'none' : arch.withTests ? 'included' : 'left-out';
    } catch (error) {
      if (mine !== this.#overviewDraws) return;
      this.#root.dataset.overview = 'failed';
      panel.replaceChildren(h('p', { class: 'map-empty', role: 'alert' }, `The architecture could not be drawn: ${error instanceof Error ? error.message : String(error)}`));
    }
  }

  /** The overview panel's inner size, less the summary line above the drawing; zero while it is hidden. */
  #overviewInner(): { width: number; height: number } {
    const panel = this.#overview;
    if (panel.hidden || panel.clientWidth === 0) return { width: 0, height: 0 };
    return { width: panel.clientWidth - 24, height: panel.clientHeight - 56 };
  }

  /**
   * Draws the overview again where the panel's size has changed by more
   * than a little since (the panel's ResizeObserver calls it, also when the
   * panel is shown).
   */
  #redrawOverview(): void {
    const now = this.#overviewInner();
    if (now.width === 0 || !this.#architecture) return;
    const was = this.#overviewSize ?? { width: 0, height: 0 };
    if (Math.abs(was.width - now.width) > 40 || Math.abs(was.height - now.height) > 40) void this.#drawOverview();
  }

  /** Shows the architecture overview or the files and definitions. */
  #setLevel(level: Level): void {
    this.#level = level;
    this.#root.dataset.level = level;
    this.#overview.hidden = level !== 'architecture';
    this.#stage.hidden = level === 'architecture';
    this.#list.hidden = level === 'architecture';
    for (const [l, button] of this.#levelButtons) button.setAttribute('aria-pressed', String(l === level));
    // The overview's panel, shown, redraws itself (its ResizeObserver).
    if (level === 'files') this.resize();
  }

  /** Opens a community: its files and definitions on the map, coloured by community. */
  #zoomIntoCommunity(community: Community): void {
    this.#setLevel('files');
    this.#colourBy = 'community';
    if (this.#colourSelect) this.#colourSelect.value = 'community';
    this.#renderLegend();
    const map = this.#map;
    const first = community.files[0];
    this.focus(first === undefined || !map ? community.keys : [map.nodes.key[first]!, ...community.keys]);
    this.#root.dataset.community = String(community.id);
  }

  /** Focuses the map on these qualified names (and zooms to them); an empty list clears the focus. */
  focus(keys: readonly string[]): number {
    if (keys.length > 0 && this.#level !== 'files') this.#setLevel('files');
    const graph = this.#graph;
    const map = this.#map;
    if (!graph || !map) return 0;
    const wanted = new Set(keys);
    this.#focus = new Set();
    map.nodes.key.forEach((key, i) => {
      if (wanted.has(key)) this.#focus.add(String(i));
    });
    this.#root.dataset.focus = String(this.#focus.size);
    // The first key is the symbol asked about: it is the selection.
    const first = keys[0] === undefined ? -1 : map.nodes.key.indexOf(keys[0]);
    this.#select(first < 0 ? undefined : String(first));
    // sigma draws the new graph at once (setGraph refreshes), so the focus's
    // framed positions are known to zoom to.
    this.#sync();
    if (this.#focus.size > 0) this.#zoomTo([...this.#focus]);
    return this.#focus.size;
  }

  /**
   * Where a node is drawn, in pixels from the page's top left, or null when it
   * is not on the map or hidden at this zoom. For tests and tours.
   */
  screenPosition(key: string): { x: number; y: number } | null {
    const sigma = this.#sigma;
    const map = this.#map;
    if (!sigma || !map) return null;
    const i = map.nodes.key.indexOf(key);
    const data = i < 0 ? undefined : sigma.getNodeDisplayData(String(i));
    if (!data || data.hidden) return null;
    const point = sigma.framedGraphToViewport(data);
    const box = this.#canvas.getBoundingClientRect();
    return { x: box.left + point.x, y: box.top + point.y };
  }

  /** The community of a file (its id as text), "" when there is none: for tests. */
  communityOfFile(path: string): string {
    const map = this.#map;
    const arch = this.#architecture;
    if (!map || !arch) return '';
    const i = map.nodes.file.findIndex((file, at) => file === path && map.nodes.level[at] === LEVEL_FILE);
    return i < 0 ? '' : String(arch.communityOf[i]);
  }

  /** The renderer, for tests and benchmarks that drive the camera. */
  get renderer(): Sigma | undefined {
    return this.#sigma;
  }

  /** Draws every node at every zoom (true), or by level of detail (false, the default). */
  showAllLevels(all: boolean): void {
    this.#allLevels = all;
    this.#sync();
  }

  /** Re-reads the theme's colours (after a switch between dark and light). */
  applyTheme(): void {
    this.#theme = themeColours();
    this.#sigma?.setSetting('labelColor', { color: this.#theme.label });
    this.#sigma?.refresh({ skipIndexation: true });
  }

  /** Called when the map becomes visible: sigma needs its container's size. */
  resize(): void {
    this.#sigma?.resize();
    this.#sync(); // draws: sigma's setGraph refreshes
  }

  dispose(): void {
    this.#layout?.kill();
    this.#layout = undefined;
    cancelAnimationFrame(this.#layoutFrame);
    this.#layoutFrame = 0;
    this.#sigma?.kill();
    this.#sigma = undefined;
    this.#graph?.removeAllListeners();
    this.#graph = undefined;
    this.#shown = undefined;
    this.#shownFor = undefined;
    this.#map = undefined;
  }

  /** The level of detail for the camera's zoom. */
  #levelFor(ratio: number): number {
    return LEVEL_RATIOS.filter((r) => ratio < r).length - 1;
  }

  /** The viewport in graph coordinates, widened by `margin` viewports on each side; undefined while the map has no size. */
  #viewport(margin: number): Area | undefined {
    const sigma = this.#sigma;
    if (!sigma) return undefined;
    const { width, height } = sigma.getDimensions();
    if (width === 0 || height === 0) return undefined;
    const a = sigma.viewportToGraph({ x: -width * margin, y: -height * margin });
    const b = sigma.viewportToGraph({ x: width * (1 + margin), y: height * (1 + margin) });
    return { minX: Math.min(a.x, b.x), minY: Math.min(a.y, b.y), maxX: Math.max(a.x, b.x), maxY: Math.max(a.y, b.y) };
  }

  /** On a camera move: chooses the shown nodes again once the view leaves the area they were chosen for, or the level changes. */
  #follow(): void {
    const sigma = this.#sigma;
    const last = this.#shownFor;
    if (!sigma || !last) return;
    const level = this.#levelFor(sigma.getCamera().getState().ratio);
    const view = this.#viewport(0);
    const inside =
      !last.area || (view !== undefined && view.minX >= last.area.minX && view.maxX <= last.area.maxX && view.minY >= last.area.minY && view.maxY <= last.area.maxY);
    if (level !== last.level || !inside) this.#sync();
  }

  /** Frames the map by the whole graph's extent. */
  #frame(): void {
    const graph = this.#graph;
    if (!graph || graph.order === 0) return;
    const x: [number, number] = [Infinity, -Infinity];
    const y: [number, number] = [Infinity, -Infinity];
    graph.forEachNode((_, a) => {
      x[0] = Math.min(x[0], a.x as number);
      x[1] = Math.max(x[1], a.x as number);
      y[0] = Math.min(y[0], a.y as number);
      y[1] = Math.max(y[1], a.y as number);
    });
    this.#sigma?.setCustomBBox({ x, y });
  }

  /** Draws the layout's latest positions: the frame, then the shown nodes chosen again where they now lie. */
  #followLayout(): void {
    this.#frame();
    this.#sync();
  }

  /**
   * Chooses the nodes sigma draws: the levels of detail the zoom asks for,
   * inside the widened viewport, plus the focus and the hovered node. When
   * more than `SHOWN_BUDGET` qualify, the finest level that fits only in part
   * is thinned evenly and the finer ones are left out.
   */
  #sync(): void {
    const graph = this.#graph;
    const sigma = this.#sigma;
    if (!graph || !sigma) return;
    const level = this.#levelFor(sigma.getCamera().getState().ratio);
    const area = this.#allLevels ? undefined : this.#viewport(VIEW_MARGIN);
    this.#shownFor = { area, level };
    const byLevel: string[][] = LEVEL_RATIOS.map(() => []);
    const always = new Set<string>(this.#focus);
    if (this.#hovered !== undefined) always.add(this.#hovered);
    graph.forEachNode((node, a) => {
      if (always.has(node)) return;
      const nodeLevel = a.level as number;
      if (!this.#allLevels && nodeLevel > level) return;
      if (area && ((a.x as number) < area.minX || (a.x as number) > area.maxX || (a.y as number) < area.minY || (a.y as number) > area.maxY)) return;
      byLevel[nodeLevel]?.push(node);
    });
    const wanted = new Set(always);
    for (const nodes of byLevel) {
      const room = this.#allLevels ? nodes.length : SHOWN_BUDGET - wanted.size;
      if (room <= 0) break;
      const share = Math.min(1, room / nodes.length);
      for (const node of nodes) if (share === 1 || spread(node) < share) wanted.add(node);
    }
    // A new graph for sigma, not edits to the one it draws: sigma reindexes
    // its whole graph after each node dropped from it.
    const next = new Graph({ type: 'directed', multi: false, allowSelfLoops: false });
    for (const node of wanted) next.addNode(node, { ...graph.getNodeAttributes(node) });
    for (const node of wanted) {
      graph.forEachOutEdge(node, (edge, attributes, source, target) => {
        if (next.hasNode(target)) next.addEdgeWithKey(edge, source, target, attributes);
      });
    }
    this.#shown = next;
    sigma.setGraph(next);
    this.#root.dataset.shown = String(next.order);
  }

  /** Keyboard: arrows pan, + and - zoom, 0 shows the whole map. */
  #onKey(event: KeyboardEvent): void {
    const camera = this.#sigma?.getCamera();
    if (!camera || event.ctrlKey || event.metaKey || event.altKey) return;
    const { x, y, ratio } = camera.getState();
    const step = 0.1 * ratio;
    const moves: Record<string, () => void> = {
      ArrowLeft: () => void camera.animate({ x: x - step }, { duration: 120 }),
      ArrowRight: () => void camera.animate({ x: x + step }, { duration: 120 }),
      ArrowUp: () => void camera.animate({ y: y + step }, { duration: 120 }),
      ArrowDown: () => void camera.animate({ y: y - step }, { duration: 120 }),
      '+': () => void camera.animatedZoom({ duration: 150 }),
      '=': () => void camera.animatedZoom({ duration: 150 }),
      '-': () => void camera.animatedUnzoom({ duration: 150 }),
      '0': () => void camera.animatedReset({ duration: 200 }),
    };
    const move = moves[event.key];
    if (!move) return;
    event.preventDefault();
    move();
  }

  /** Reprocesses the node entered and the node left, and their edges, only. */
  #hover(node: string | undefined): void {
    const shown = this.#shown;
    const previous = this.#hovered;
    this.#hovered = node;
    if (!shown) return;
    const nodes = [previous, node].filter((n): n is string => n !== undefined && shown.hasNode(n));
    if (nodes.length === 0) return;
    const edges = new Set<string>();
    for (const n of nodes) shown.forEachEdge(n, (edge) => void edges.add(edge));
    this.#sigma?.refresh({ partialGraph: { nodes, edges: [...edges] }, skipIndexation: true });
  }

  /** Selects a node (or none) and lists its neighbours beside the map, each edge with its type and direction. */
  #select(node: string | undefined): void {
    this.#selected = node;
    const graph = this.#graph;
    const map = this.#map;
    this.#root.dataset.selected = node === undefined || !map ? '' : map.nodes.key[Number(node)] ?? '';
    if (node === undefined || !graph || !map || !graph.hasNode(node)) {
      this.#list.replaceChildren(h('p', { class: 'muted' }, 'Select a node (click it, or "Show in map" from the code) to list its neighbours here.'));
      return;
    }
    const i = Number(node);
    const describe = (n: number) => `${map.kinds[map.nodes.kind[n]!]?.replace('_', ' ') ?? ''} ${map.nodes.key[n] ?? ''}`;
    const neighbours: { node: string; edge: string; outgoing: boolean }[] = [];
    graph.forEachOutEdge(node, (_edge, attributes, _source, target) => void neighbours.push({ node: target, edge: String(attributes.edgeType), outgoing: true }));
    graph.forEachInEdge(node, (_edge, attributes, source) => void neighbours.push({ node: source, edge: String(attributes.edgeType), outgoing: false }));
    neighbours.sort((a, b) => (map.nodes.label[Number(a.node)] ?? '').localeCompare(map.nodes.label[Number(b.node)] ?? ''));
    const open = h('button', { type: 'button', class: 'chip-button', 'data-testid': 'map-list-open' }, map.kinds[map.nodes.kind[i]!] === 'directory' ? 'Zoom to it' : 'Open code');
    open.addEventListener('click', () => this.#open(node));
    const shown = neighbours.slice(0, MAX_LISTED);
    this.#list.replaceChildren(
      h('h3', {}, 'Selected: ', h('span', { class: 'map-list-name', 'data-testid': 'map-list-selected', title: describe(i) }, map.nodes.label[i] ?? ''), ' ', open),
      h('p', { class: 'muted' }, `${describe(i)} · ${neighbours.length} neighbour${neighbours.length === 1 ? '' : 's'}`),
      h('ul', {}, ...shown.map((n) => {
        const at = Number(n.node);
        const pick = h('button', { type: 'button', class: 'link', 'data-key': map.nodes.key[at] ?? '', title: describe(at) }, map.nodes.label[at] ?? '');
        pick.addEventListener('click', () => {
          this.#select(n.node);
          this.#zoomTo([n.node]);
          this.#list.querySelector<HTMLElement>('[data-testid="map-list-open"]')?.focus();
        });
        return h('li', { 'data-edge': n.edge }, pick, h('span', { class: 'muted' }, n.outgoing ? ` · the selected ${n.edge} it` : ` · it ${n.edge} the selected`));
      })),
      h('p', { class: 'muted', hidden: neighbours.length <= shown.length }, `and ${neighbours.length - shown.length} more`),
    );
  }

  #open(node: string): void {
    const map = this.#map;
    if (!map) return;
    if (this.#selected !== node) this.#select(node);
    const i = Number(node);
    const kind = map.kinds[map.nodes.kind[i]!] ?? '';
    if (kind === 'directory') {
      this.#zoomTo([node]);
      return;
    }
    this.#onOpen({ key: map.nodes.key[i]!, file: map.nodes.file[i]!, line: map.nodes.line[i]!, kind });
  }

  #zoomTo(nodes: string[]): void {
    const sigma = this.#sigma;
    if (!sigma) return;
    let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
    for (const node of nodes) {
      const { x, y } = sigma.getNodeDisplayData(node) ?? { x: 0.5, y: 0.5 };
      minX = Math.min(minX, x);
      maxX = Math.max(maxX, x);
      minY = Math.min(minY, y);
      maxY = Math.max(maxY, y);
    }
    const ratio = Math.max(0.02, Math.min(1, Math.max(maxX - minX, maxY - minY) * 1.4));
    void sigma.getCamera().animate({ x: (minX + maxX) / 2, y: (minY + maxY) / 2, ratio }, { duration: 400 });
  }

  #colour(data: Record<string, unknown>): string {
    if (this.#colourBy === 'group') return GROUP_PALETTE[(data.group as number) % GROUP_PALETTE.length] ?? '#999';
    if (this.#colourBy === 'community') {
      const c = data.community as number;
      return c < 0 ? this.#theme.dim : GROUP_PALETTE[c % GROUP_PALETTE.length] ?? '#999';
    }
    return KIND_COLOURS[data.kind as string] ?? '#999';
  }

  #reduceNode(node: string, data: Record<string, unknown>): Record<string, unknown> {
    const focused = this.#focus.size > 0;
    const inFocus = this.#focus.has(node);
    const colour = focused && !inFocus ? this.#theme.dim : this.#colour(data);
    return {
      ...data,
      color: colour,
      zIndex: inFocus ? 2 : 1,
      forceLabel: inFocus && this.#focus.size <= 60,
      highlighted: node === this.#hovered,
    };
  }

  #reduceEdge(edge: string, data: Record<string, unknown>): Record<string, unknown> {
    const graph = this.#shown;
    const type = data.edgeType as string;
    if (!graph || !this.#edgeTypes.has(type)) return { ...data, hidden: true };
    const [source, target] = graph.extremities(edge);
    if (this.#focus.size > 0) {
      if (!this.#focus.has(source) || !this.#focus.has(target)) return { ...data, hidden: true };
      return { ...data, color: EDGE_COLOURS[type] ?? '#888', size: 1.2 };
    }
    // A hovered node's edges stand out; the rest stay as they are, so a
    // hover reprocesses one node's edges, not all of them.
    if (this.#hovered !== undefined && (source === this.#hovered || target === this.#hovered)) {
      return { ...data, color: EDGE_COLOURS[type] ?? '#888', size: 1.6, zIndex: 2 };
    }
    return { ...data, color: `${EDGE_COLOURS[type] ?? '#888888'}55` };
  }

  #startLayout(): void {
    const graph = this.#graph;
    if (!graph || graph.order < 2) return;
    const settings = { ...forceAtlas2.inferSettings(graph), barnesHutOptimize: graph.order > 2000, slowDown: 5 };
    this.#layout = new FA2Layout(graph, { settings });
    this.#layout.start();
    this.#root.dataset.layout = 'running';
    const layout = this.#layout;
    setTimeout(() => {
      if (this.#layout !== layout) return;
      layout.stop();
      this.#root.dataset.layout = 'done';
    }, LAYOUT_MS(graph.order));
  }

  #toolbar(): HTMLElement {
    const colour = h(
      'select',
      { class: 'map-colour', 'aria-label': 'Colour nodes by', 'data-testid': 'map-colour' },
      h('option', { value: 'kind' }, 'colour: kind'),
      h('option', { value: 'group' }, 'colour: directory'),
      h('option', { value: 'community' }, 'colour: community'),
    );
    this.#colourSelect = colour;
    colour.addEventListener('change', () => {
      this.#colourBy = colour.value as ColourBy;
      this.#renderLegend();
      this.#sigma?.refresh({ skipIndexation: true });
    });
    const filters = h('span', { class: 'map-filters' });
    for (const type of Object.keys(EDGE_COLOURS)) {
      const box = h('input', { type: 'checkbox', value: type, checked: DEFAULT_EDGES.has(type), 'data-edge': type });
      box.addEventListener('change', () => {
        if (box.checked) this.#edgeTypes.add(type);
        else this.#edgeTypes.delete(type);
        this.#sigma?.refresh({ skipIndexation: true });
      });
      filters.append(h('label', { class: 'map-filter' }, box, type.toLowerCase().replace('_', '-')));
    }
    const clear = h('button', { type: 'button', class: 'map-clear', 'data-testid': 'map-clear' }, 'Clear focus');
    clear.addEventListener('click', () => {
      this.focus([]);
      void this.#sigma?.getCamera().animatedReset({ duration: 300 });
    });
    const levels = h('span', { class: 'map-levels', role: 'group', 'aria-label': 'Map level' });
    for (const [level, text] of [['architecture', 'Architecture'], ['files', 'Files and definitions']] as const) {
      const button = h('button', { type: 'button', class: 'chip-button', 'aria-pressed': 'false', 'data-testid': `map-level-${level}` }, text);
      button.addEventListener('click', () => this.#setLevel(level));
      this.#levelButtons.set(level, button);
      levels.append(button);
    }
    const tests = h('input', { type: 'checkbox', 'data-testid': 'map-tests' });
    tests.checked = this.#withTests;
    tests.addEventListener('change', () => {
      this.#withTests = tests.checked;
      this.#group();
      this.#renderLegend();
      this.#sigma?.refresh({ skipIndexation: true });
    });
    this.#testsToggle = tests;
    const testsLabel = h('label', { class: 'map-filter', title: 'Group test code into the architecture too' }, tests, 'test code');
    return h('div', { class: 'map-toolbar' }, levels, testsLabel, colour, filters, clear);
  }

  #renderLegend(): void {
    const map = this.#map;
    if (!map) return;
    const entries: [string, string][] =
      this.#colourBy === 'kind'
        ? map.kinds.map((k) => [k.replace('_', ' '), KIND_COLOURS[k] ?? '#999'])
        : this.#colourBy === 'community'
          ? (this.#architecture?.communities ?? []).slice(0, GROUP_PALETTE.length).map((c) => [c.name, GROUP_PALETTE[c.id % GROUP_PALETTE.length] ?? '#999'])
          : map.groups.slice(0, GROUP_PALETTE.length).map((g, i) => [g, GROUP_PALETTE[i] ?? '#999']);
    this.#legend.replaceChildren(
      ...entries.map(([name, colour]) =>
        h('span', { class: 'legend-item' }, h('span', { class: 'swatch', style: `background:${colour}` }), name),
      ),
    );
  }
}
