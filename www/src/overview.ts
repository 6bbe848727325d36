// The architecture overview: communities as boxes in layers along their
// dependencies (ELK's layered algorithm, elkjs, loaded with the map), each
// dependency's strength as its width and count, cycles in red; and the same
// as text, which is also the keyboard's way in. The drawing is laid out
// left to right and top to bottom, and the one that fills the panel more is
// kept, scaled to it. Choosing a community zooms the map into it.
import type { ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api';
import { h, plural } from '../../web/src/ui/dom';
import { type Architecture, type Community, cycleChain, shortDirectories } from './communities';
import { activate, arrowMarker, route, svgEl as el } from './svg';

const CHAR_PX = 7;
/** Communities drawn; smaller ones are listed only. */
const MAX_DRAWN = 40;
/** The drawing is scaled to its panel within these: labels stay legible, two boxes do not become posters. */
const MIN_SCALE = 0.8;
export const MAX_SCALE = 2.5;

function filesOf(c: Community): string {
  return plural(c.files.length, 'file');
}

type Elk = InstanceType<typeof import('elkjs/lib/elk-api').default>;
let elk: Promise<Elk> | undefined;

/** ELK, bundled (no worker of its own), loaded the first time the overview is drawn. */
function loadElk(): Promise<Elk> {
  elk ??= import('elkjs/lib/elk.bundled.js').then(({ default: ELK }) => new ELK());
  elk.catch(() => {
    elk = undefined;
  });
  return elk;
}

/** The communities and dependencies laid out in layers going `direction`. */
async function layered(drawn: Community[], shown: Architecture['dependencies'], direction: 'RIGHT' | 'DOWN'): Promise<ElkNode> {
  const edges: ElkExtendedEdge[] = shown.map((d) => ({
    id: `${d.from}-${d.to}`, sources: [String(d.from)], targets: [String(d.to)],
    labels: [{ text: String(d.weight), width: String(d.weight).length * 7 + 6, height: 14 }],
  }));
  return (await loadElk()).layout<ElkNode>({
    id: 'overview',
    layoutOptions: {
      'elk.algorithm': 'layered', 'elk.direction': direction, 'elk.padding': '[top=8,left=8,bottom=8,right=8]',
      'elk.spacing.nodeNode': '18', 'elk.layered.spacing.nodeNodeBetweenLayers': '56', 'elk.edgeLabels.placement': 'CENTER',
      'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
    },
    children: drawn.map((c) => ({ id: String(c.id), width: Math.max(c.name.length, 12) * CHAR_PX + 20, height: 38 })),
    edges,
  });
}

/** How much of a `width` by `height` panel a drawing fills, scaled to fit it. */
function fit(graph: ElkNode, width: number, height: number): number {
  const [w, h] = [graph.width ?? 1, graph.height ?? 1];
  return Math.min(width / w, height / h);
}

/**
 * The overview for a panel of `size` (its inner width and height; zero
 * where it is hidden, when the drawing keeps its own size).
 */
export async function renderOverview(
  arch: Architecture,
  palette: readonly string[],
  choose: (community: Community) => void,
  size: { width: number; height: number },
): Promise<Element[]> {
  const drawn = arch.communities.slice(0, MAX_DRAWN);
  const ids = new Set(drawn.map((c) => c.id));
  const shown = arch.dependencies.filter((d) => ids.has(d.from) && ids.has(d.to));
  // Both ways where there is a panel to fill; a hidden one gets one, as
  // it keeps the drawing's own size until it is shown and drawn again.
  const visible = size.width > 0 && size.height > 0;
  const [across, down] = await Promise.all([
    layered(drawn, shown, 'RIGHT'),
    visible ? layered(drawn, shown, 'DOWN') : undefined,
  ]);
  const g = down && fit(down, size.width, size.height) > fit(across, size.width, size.height) ? down : across;
  const [width, height] = [Math.ceil(g.width ?? 0), Math.ceil(g.height ?? 0)];
  const scale = visible ? Math.min(MAX_SCALE, Math.max(MIN_SCALE, fit(g, size.width, size.height))) : 1;
  // Whole pixels: down where the drawing is fitted to the panel, so that it
  // fits; up where it is held at its smallest scale, so that its labels are
  // never drawn below it.
  const px = (n: number): number => (scale > MIN_SCALE ? Math.floor(n * scale) : Math.ceil(n * scale));
  const svg = el('svg', {
    viewBox: `0 0 ${width} ${height}`, width: px(width), height: px(height),
    class: 'overview-graph', 'data-testid': 'overview-graph', 'data-direction': g === down ? 'down' : 'right', 'data-scale': scale.toFixed(3),
    role: 'group', 'aria-label': `${arch.communities.length} communities and the dependencies between them`,
  }) as SVGSVGElement;
  const defs = el('defs', {});
  // Arrowheads of one size, however wide the dependency's line.
  for (const kind of ['plain', 'cycle']) defs.append(arrowMarker(`ov-arrow-${kind}`, `ov-arrow ov-arrow-${kind}`, 10, 'userSpaceOnUse'));
  svg.append(defs);
  const heaviest = Math.max(1, ...shown.map((d) => d.weight));
  const name = (id: number) => arch.communities[id]?.name ?? String(id);
  const laidEdges = new Map((g.edges ?? []).map((e) => [e.id, e]));
  for (const d of shown) {
    const edge = laidEdges.get(`${d.from}-${d.to}`);
    const section = edge?.sections?.[0];
    const points = section ? [section.startPoint, ...(section.bendPoints ?? []), section.endPoint] : [];
    const group = el('g', { class: `ov-dependency${d.cycle ? ' ov-cycle' : ''}`, 'data-from': d.from, 'data-to': d.to, 'data-weight': d.weight, 'data-cycle': String(d.cycle) });
    group.append(el('path', {
      d: route(points),
      class: 'ov-line', 'stroke-width': (1 + 4 * (d.weight / heaviest)).toFixed(2), 'marker-end': `url(#ov-arrow-${d.cycle ? 'cycle' : 'plain'})`,
    }));
    group.append(el('title', {}, `${name(d.from)} → ${name(d.to)}: ${d.weight} calls and imports${d.cycle ? ' (in a cycle)' : ''}`));
    const label = edge?.labels?.[0];
    if (label?.x !== undefined && label.y !== undefined) {
      const [lx, ly] = [label.x + (label.width ?? 0) / 2, label.y + (label.height ?? 0) / 2 + 4];
      group.append(el('text', { x: lx.toFixed(1), y: ly.toFixed(1), 'text-anchor': 'middle', class: 'ov-weight' }, String(d.weight)));
    }
    svg.append(group);
  }
  const boxes = new Map((g.children ?? []).map((n) => [n.id, n]));
  for (const c of drawn) {
    const box = boxes.get(String(c.id));
    const [bw, bh] = [box?.width ?? 0, box?.height ?? 0];
    const [x, y] = [(box?.x ?? 0) + bw / 2, (box?.y ?? 0) + bh / 2];
    const node = el('g', {
      class: `ov-community${c.inCycle ? ' ov-in-cycle' : ''}`, 'data-community': c.id, 'data-name': c.name, 'data-x': x.toFixed(1),
      tabindex: 0, role: 'button', 'aria-label': `${c.name} ${filesOf(c)}, zoom in`,
    });
    node.append(el('title', {}, `${c.name}\n${c.files.length} files${c.inCycle ? '\nin a dependency cycle' : ''}`));
    node.append(el('rect', { x: (x - bw / 2).toFixed(1), y: (y - bh / 2).toFixed(1), width: bw.toFixed(1), height: bh, rx: 6, style: `--community:${palette[c.id % palette.length]}` }));
    // One text, two lines: what is read aloud is what is shown.
    const text = el('text', { x: x.toFixed(1), y: (y - 2).toFixed(1), 'text-anchor': 'middle' });
    text.append(el('tspan', { class: 'ov-name' }, c.name), el('tspan', { x: x.toFixed(1), dy: 14, class: 'ov-size' }, ` ${filesOf(c)}`));
    node.append(text);
    activate(node, () => choose(c));
    svg.append(node);
  }

  const cycles = arch.cycles.length + arch.directoryCycles.length;
  const tests = arch.testFiles === 0 ? '' : arch.withTests ? ` · tests included (${plural(arch.testFiles, 'file')})` : ` · ${plural(arch.testFiles, 'test file')} left out`;
  const summary = h('p', { class: 'overview-summary', 'data-testid': 'overview-summary' },
    `${plural(arch.communities.length, 'community', 'communities')}${arch.root ? ` under ${arch.root}/` : ''} (modularity ${arch.modularity.toFixed(2)}) · ${plural(arch.dependencies.length, 'dependency', 'dependencies')} between them${tests} · `,
    cycles === 0 ? 'no cycles' : h('strong', { class: 'ov-cycle-text' }, `${plural(arch.cycles.length, 'cycle')} between communities, ${arch.directoryCycles.length} between directories`));
  const list = h('ol', { class: 'overview-list', 'data-testid': 'overview-list' }, ...arch.communities.map((c) => {
    const button = h('button', { type: 'button', class: 'link', 'data-community': c.id }, c.name);
    button.addEventListener('click', () => choose(c));
    const out = arch.dependencies.filter((d) => d.from === c.id);
    return h('li', { 'data-community': c.id },
      button, h('span', { class: 'muted' }, ` · ${c.files.length} files`), c.inCycle ? h('span', { class: 'ov-cycle-text' }, ' · in a cycle') : null,
      out.length > 0 ? h('span', { class: 'muted' }, ` · depends on ${out.map((d) => `${name(d.to)} (${d.weight})`).join(', ')}`) : null);
  }));
  // Each cycle as the chain it runs along, in the names the map shows.
  const depends = new Set(arch.dependencies.map((d) => `${d.from} ${d.to}`));
  const short = (id: number) => arch.communities[id]?.short ?? String(id);
  const dirNames = shortDirectories(arch.directoryCycles.flat());
  const chain = (parts: string[]) => (parts.length > 1 && parts[0] === parts[parts.length - 1] ? parts.join(' → ') : parts.join(' ⇄ '));
  const cycleList = cycles === 0 ? null : h('ul', { class: 'overview-cycles', 'data-testid': 'overview-cycles' },
    ...arch.cycles.map((cycle) => h('li', { 'data-communities': cycle.join(' ') }, 'Communities: ',
      h('code', {}, chain(cycleChain(cycle, (a, b) => depends.has(`${a} ${b}`)).map(short))))),
    ...arch.directoryCycles.map((cycle) => h('li', { 'data-directories': cycle.join(' ') }, 'Directories: ',
      h('code', {}, chain(cycleChain(cycle, (a, b) => arch.directoryLinks.has(`${a}\n${b}`)).map((d) => dirNames.get(d) ?? d))))));
  return [summary, h('div', { class: 'overview-stage', 'data-testid': 'overview-stage' }, svg), ...(cycleList ? [cycleList] : []), list];
}
