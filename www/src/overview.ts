// The architecture overview: communities as boxes laid out left to right
// along their dependencies (dagre), each dependency's strength as its width
// and count, cycles in red; and the same as text, which is also the
// keyboard's way in. Choosing a community zooms the map into it.
import { type EdgeLabel, Graph, type GraphLabel, layout, type NodeLabel } from '@dagrejs/dagre';
import { h, plural } from '../../web/src/ui/dom';
import { type Architecture, type Community, cycleChain, shortDirectories } from './communities';
import { activate, arrowMarker, layoutRoot, route, svgEl as el } from './svg';

const CHAR_PX = 7;
/** Communities drawn; smaller ones are listed only. */
const MAX_DRAWN = 40;

function filesOf(c: Community): string {
  return plural(c.files.length, 'file');
}

export function renderOverview(arch: Architecture, palette: readonly string[], choose: (community: Community) => void): Element[] {
  const drawn = arch.communities.slice(0, MAX_DRAWN);
  const ids = new Set(drawn.map((c) => c.id));
  const g = new Graph<GraphLabel, NodeLabel, EdgeLabel>({ multigraph: false });
  g.setGraph({ rankdir: 'LR', nodesep: 18, ranksep: 70, marginx: 8, marginy: 8 });
  for (const c of drawn) g.setNode(String(c.id), { width: Math.max(c.name.length, 12) * CHAR_PX + 20, height: 38 });
  const shown = arch.dependencies.filter((d) => ids.has(d.from) && ids.has(d.to));
  for (const d of shown) g.setEdge(String(d.from), String(d.to), { width: String(d.weight).length * 7 + 6, height: 14, labelpos: 'c' });
  layout(g);
  const svg = layoutRoot(g, 'overview-graph', 'overview-graph', `${arch.communities.length} communities and the dependencies between them`);
  const defs = el('defs', {});
  // Arrowheads of one size, however wide the dependency's line.
  for (const kind of ['plain', 'cycle']) defs.append(arrowMarker(`ov-arrow-${kind}`, `ov-arrow ov-arrow-${kind}`, 10, 'userSpaceOnUse'));
  svg.append(defs);
  const heaviest = Math.max(1, ...shown.map((d) => d.weight));
  const name = (id: number) => arch.communities[id]?.name ?? String(id);
  for (const d of shown) {
    const edge = g.edge(String(d.from), String(d.to));
    const points = edge.points ?? [];
    const group = el('g', { class: `ov-dependency${d.cycle ? ' ov-cycle' : ''}`, 'data-from': d.from, 'data-to': d.to, 'data-weight': d.weight, 'data-cycle': String(d.cycle) });
    group.append(el('path', {
      d: route(points),
      class: 'ov-line', 'stroke-width': (1 + 4 * (d.weight / heaviest)).toFixed(2), 'marker-end': `url(#ov-arrow-${d.cycle ? 'cycle' : 'plain'})`,
    }));
    group.append(el('title', {}, `${name(d.from)} → ${name(d.to)}: ${d.weight} calls and imports${d.cycle ? ' (in a cycle)' : ''}`));
    if (edge.x !== undefined && edge.y !== undefined) group.append(el('text', { x: edge.x.toFixed(1), y: (edge.y + 4).toFixed(1), 'text-anchor': 'middle', class: 'ov-weight' }, String(d.weight)));
    svg.append(group);
  }
  for (const c of drawn) {
    const box = g.node(String(c.id));
    const [x, y] = [box.x ?? 0, box.y ?? 0];
    const node = el('g', {
      class: `ov-community${c.inCycle ? ' ov-in-cycle' : ''}`, 'data-community': c.id, 'data-name': c.name, 'data-x': x.toFixed(1),
      tabindex: 0, role: 'button', 'aria-label': `${c.name} ${filesOf(c)}, zoom in`,
    });
    node.append(el('title', {}, `${c.name}\n${c.files.length} files${c.inCycle ? '\nin a dependency cycle' : ''}`));
    node.append(el('rect', { x: (x - box.width / 2).toFixed(1), y: (y - box.height / 2).toFixed(1), width: box.width.toFixed(1), height: box.height, rx: 6, style: `--community:${palette[c.id % palette.length]}` }));
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
  return [summary, svg, ...(cycleList ? [cycleList] : []), list];
}
