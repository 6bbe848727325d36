// What the answer graphs and the architecture overview draw with: SVG
// elements, a root sized to a dagre layout, arrowheads, edge paths, and nodes
// that act like buttons.
import type { EdgeLabel, Graph, GraphLabel, NodeLabel } from '@dagrejs/dagre';

const SVG = 'http://www.w3.org/2000/svg';

export function svgEl(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/** The root for a laid-out graph: its size, never drawn larger than it is, named for readers. */
export function layoutRoot(g: Graph<GraphLabel, NodeLabel, EdgeLabel>, className: string, testId: string, label: string): SVGSVGElement {
  const size = g.graph();
  const width = Math.ceil(size.width ?? 0);
  const height = Math.ceil(size.height ?? 0);
  const svg = svgEl('svg', { viewBox: `0 0 ${width} ${height}`, width, height, class: className, 'data-testid': testId, role: 'group', 'aria-label': label }) as SVGSVGElement;
  svg.style.maxWidth = `${width}px`;
  return svg;
}

/** An arrowhead for `marker-end: url(#id)`, sized in line widths or, with `userSpaceOnUse`, in pixels. */
export function arrowMarker(id: string, className: string, size = 7, units: 'strokeWidth' | 'userSpaceOnUse' = 'strokeWidth'): SVGElement {
  const marker = svgEl('marker', { id, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: size, markerHeight: size, markerUnits: units, orient: 'auto-start-reverse' });
  marker.append(svgEl('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: className }));
  return marker;
}

/** An edge's route as a path. */
export function route(points: readonly { x: number; y: number }[]): string {
  return points.map((p, i) => `${i === 0 ? 'M' : 'L'} ${p.x.toFixed(1)} ${p.y.toFixed(1)}`).join(' ');
}

/** Runs `action` on a click, Enter or Space: a node that acts as a button. */
export function activate(node: SVGElement, action: () => void): void {
  node.addEventListener('click', action);
  node.addEventListener('keydown', (event) => {
    const key = (event as KeyboardEvent).key;
    if (key === 'Enter' || key === ' ') {
      event.preventDefault();
      action();
    }
  });
}
