// The graph of an answer: the symbols a feature card or a tests-for answer
// names, the real edges between them, laid out left to right along the
// edges' direction (a caller left of what it calls, a test left of what it
// tests) by dagre. Every node opens its code (click, Enter or Space), and
// every edge carries its type and confidence. The engine chose the nodes and
// edges; this only draws them.
import { type EdgeLabel, Graph, type GraphLabel, layout, type NodeLabel } from '@dagrejs/dagre';
import type { Hop, NodeRef } from '../../web/src/index';
import { splitName } from '../../web/src/ui/dom';
import { activate, arrowMarker, layoutRoot, route, svgEl as el } from './svg';

/** What a node is in the answer, for its colour. */
export type Role = 'symbol' | 'connector' | 'test' | 'changed';

export interface AnswerNode {
  ref: NodeRef;
  role: Role;
}

/** Monospace label metrics at the node font (12 px): about 7.3 px a character. */
const CHAR_PX = 7.3;
const EDGE_CHAR_PX = 6.1;
const NODE_HEIGHT = 24;
/** Names longer than this are cut in the node; the tooltip keeps them whole. */
const MAX_LABEL = 28;

function label(ref: NodeRef): string {
  const { name } = splitName(ref.qualified_name, ref.name);
  return name.length > MAX_LABEL ? `${name.slice(0, MAX_LABEL - 1)}…` : name;
}

function edgeText(hop: Pick<Hop, 'type' | 'confidence'>): string {
  return `${hop.type} ${hop.confidence.toFixed(2)}`;
}

/**
 * Lays out and draws `nodes` and the `edges` among them (an edge whose end is
 * not a node is left out; repeats of one edge are drawn once).
 */
export function answerGraph(nodes: AnswerNode[], edges: Hop[], open: (node: NodeRef) => void, testId: string): SVGSVGElement {
  const g = new Graph<GraphLabel, NodeLabel, EdgeLabel>({ multigraph: true });
  g.setGraph({ rankdir: 'LR', nodesep: 12, ranksep: 56, edgesep: 10, marginx: 6, marginy: 6 });
  const byId = new Map<string, AnswerNode>();
  for (const n of nodes) {
    const id = String(n.ref.id);
    if (byId.has(id)) continue;
    byId.set(id, n);
    g.setNode(id, { width: label(n.ref).length * CHAR_PX + 18, height: NODE_HEIGHT });
  }
  const drawn: Hop[] = [];
  const seen = new Set<string>();
  for (const e of edges) {
    const [from, to] = [String(e.from.id), String(e.to.id)];
    const key = `${from} ${e.type} ${to}`;
    if (!byId.has(from) || !byId.has(to) || from === to || seen.has(key)) continue;
    seen.add(key);
    drawn.push(e);
    g.setEdge(from, to, { width: edgeText(e).length * EDGE_CHAR_PX + 6, height: 14, labelpos: 'c' }, key);
  }
  layout(g);

  const svg = layoutRoot(g, 'answer-graph', testId, `Graph of ${byId.size} symbols and ${drawn.length} edges`);
  const defs = el('defs', {});
  defs.append(arrowMarker(`${testId}-arrow`, 'ag-arrow'));
  svg.append(defs);

  for (const e of drawn) {
    const key = `${e.from.id} ${e.type} ${e.to.id}`;
    const edge = g.edge({ v: String(e.from.id), w: String(e.to.id), name: key });
    const points = edge.points ?? [];
    if (points.length === 0) continue;
    const group = el('g', { class: `ag-edge edge-${e.type}`, 'data-type': e.type, 'data-from': e.from.qualified_name, 'data-to': e.to.qualified_name, 'data-confidence': e.confidence });
    group.append(el('path', { d: route(points), class: 'ag-line', 'marker-end': `url(#${testId}-arrow)` }));
    group.append(el('title', {}, `${e.from.qualified_name} ${e.type} ${e.to.qualified_name}\nconfidence ${e.confidence.toFixed(2)} (${e.reason})${e.line === null ? '' : `, line ${e.line}`}`));
    if (edge.x !== undefined && edge.y !== undefined) {
      const text = edgeText(e);
      const w = text.length * EDGE_CHAR_PX + 6;
      group.append(el('rect', { x: (edge.x - w / 2).toFixed(1), y: (edge.y - 7).toFixed(1), width: w.toFixed(1), height: 14, rx: 3, class: 'ag-edge-label-bg' }));
      group.append(el('text', { x: edge.x.toFixed(1), y: (edge.y + 3.5).toFixed(1), 'text-anchor': 'middle', class: 'ag-edge-label' }, text));
    }
    svg.append(group);
  }

  for (const [id, n] of byId) {
    const box = g.node(id);
    const x = box.x ?? 0;
    const y = box.y ?? 0;
    const openable = n.ref.file !== null;
    const where = n.ref.file ? `${n.ref.file}:${n.ref.start_line}` : 'outside the repository';
    const node = el('g', {
      class: `ag-node ag-${n.role}${openable ? '' : ' ag-external'}`,
      'data-symbol': n.ref.qualified_name,
      'data-role': n.role,
      'data-x': x.toFixed(1),
      'data-y': y.toFixed(1),
      ...(openable ? { tabindex: 0, role: 'button', 'aria-label': `${label(n.ref)}: open ${n.ref.kind} ${n.ref.qualified_name}` } : {}),
    });
    node.append(el('title', {}, `${n.ref.kind} ${n.ref.qualified_name}\n${where}`));
    node.append(el('rect', { x: (x - box.width / 2).toFixed(1), y: (y - box.height / 2).toFixed(1), width: box.width.toFixed(1), height: box.height, rx: 5 }));
    node.append(el('text', { x: x.toFixed(1), y: (y + 4).toFixed(1), 'text-anchor': 'middle' }, label(n.ref)));
    if (openable) activate(node, () => open(n.ref));
    svg.append(node);
  }
  return svg;
}
