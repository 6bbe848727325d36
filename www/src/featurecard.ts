// The feature card: one view answering "how does X work" from the engine's
// card (Rust builds it all: symbols, connecting edges, tests, a summary read
// off the graph, and the Markdown). This draws it, with a small SVG of the
// connecting subgraph, and copies the Markdown as context for an LLM.
import type { FeatureCard, NodeRef } from '../../web/src/index';
import { h, pathLabel, symbolLink } from '../../web/src/ui/dom';

export interface FeatureCardActions {
  build(query: string, budget: number): Promise<FeatureCard>;
  open(node: NodeRef): void;
  showInMap(keys: string[]): void;
}

const BUDGETS = [1000, 2000, 4000, 8000, 16000, 32000];
const SVG = 'http://www.w3.org/2000/svg';

export class FeatureCardView {
  readonly #root: HTMLElement;
  readonly #actions: FeatureCardActions;
  readonly #budget: HTMLSelectElement;
  readonly #body: HTMLElement;
  #card: FeatureCard | undefined;
  #generation = 0;

  constructor(root: HTMLElement, actions: FeatureCardActions) {
    this.#root = root;
    this.#actions = actions;
    this.#budget = h('select', { class: 'card-budget', 'aria-label': 'Token budget', 'data-testid': 'card-budget' },
      ...BUDGETS.map((b) => h('option', { value: String(b), selected: b === 4000 }, `${b.toLocaleString('en-US')} tokens`)));
    this.#budget.addEventListener('change', () => {
      if (this.#card) void this.show(this.#card.query);
    });
    const copy = h('button', { type: 'button', class: 'button primary', 'data-testid': 'card-copy' }, 'Copy as context');
    copy.addEventListener('click', () => void this.#copy(copy));
    this.#body = h('div', { class: 'card-body', 'data-testid': 'card-body' },
      h('p', { class: 'empty' }, 'Type a question in the search box, such as “how is the session saved”, then press “Card”.'));
    root.replaceChildren(h('header', { class: 'card-toolbar' }, this.#budget, copy), this.#body);
  }

  /** Builds and shows the card for `query`. */
  async show(query: string): Promise<void> {
    const generation = ++this.#generation;
    this.#root.dataset.state = 'building';
    this.#body.replaceChildren(h('p', { class: 'muted' }, `Building the card for “${query}”…`));
    try {
      const card = await this.#actions.build(query, Number(this.#budget.value));
      if (generation !== this.#generation) return;
      this.#card = card;
      this.#render(card);
      this.#root.dataset.state = 'ready';
    } catch (error) {
      if (generation !== this.#generation) return;
      this.#root.dataset.state = 'failed';
      this.#body.replaceChildren(h('p', { class: 'query-error' }, error instanceof Error ? error.message : String(error)));
    }
  }

  async #copy(button: HTMLButtonElement): Promise<void> {
    if (!this.#card) return;
    const text = this.#card.markdown;
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = `Copied ${this.#card.tokens.toLocaleString('en-US')} tokens`;
    } catch {
      // No clipboard permission (an embedded frame, say): select the text instead.
      const area = this.#root.querySelector<HTMLTextAreaElement>('.card-markdown');
      area?.select();
      button.textContent = 'Selected: press Ctrl+C';
    }
    this.#root.dataset.copied = String(text.length);
    setTimeout(() => { button.textContent = 'Copy as context'; }, 2500);
  }

  #link(node: NodeRef): HTMLButtonElement {
    return symbolLink(node, (n) => this.#actions.open(n));
  }

  #render(card: FeatureCard): void {
    const keys = [...card.symbols.map((s) => s.symbol.qualified_name), ...card.connectors.map((c) => c.qualified_name)];
    const mapButton = h('button', { type: 'button', class: 'chip-button', 'data-testid': 'card-map' }, 'Show in map');
    mapButton.addEventListener('click', () => this.#actions.showInMap(keys));
    const parts: (HTMLElement | null)[] = [
      h('h2', { class: 'card-title' }, card.query),
      h('p', { class: 'muted' }, `${card.mode} search · ${card.tokens.toLocaleString('en-US')} of ${card.budget.toLocaleString('en-US')} tokens as context`),
      h('ul', { class: 'card-summary', 'data-testid': 'card-summary' }, ...card.summary.map((s) => h('li', {}, ...inlineCode(s)))),
      card.edges.length > 0 ? h('section', { class: 'card-graph' }, h('h3', {}, 'How they connect ', mapButton), subgraph(card)) : null,
      h('section', { 'data-testid': 'card-symbols' }, h('h3', {}, 'Symbols'),
        ...card.symbols.map((s) => h('article', { class: 'card-symbol' },
          h('header', {}, this.#link(s.symbol), pathLabel(s.symbol.file ?? '', `${s.symbol.start_line}-${s.symbol.end_line}`)),
          s.doc ? h('p', { class: 'symbol-doc' }, s.doc) : null,
          s.code ? h('pre', { class: 'card-code' }, clip(s.code)) : null))),
      card.tests.length > 0
        ? h('section', { 'data-testid': 'card-tests' }, h('h3', {}, `Tests (${card.tests.length})`),
            h('ul', {}, ...card.tests.map((t) => h('li', {}, this.#link(t.node)))))
        : null,
      h('details', { class: 'card-md' }, h('summary', {}, 'Markdown context'),
        h('textarea', { class: 'card-markdown', readonly: true, rows: 12, 'aria-label': 'The card as Markdown', 'data-testid': 'card-markdown' }, card.markdown)),
    ];
    this.#body.replaceChildren(...parts.filter((p): p is HTMLElement => p !== null));
  }
}

/** Sentences with `code` spans, as the engine writes them. */
function inlineCode(text: string): (string | HTMLElement)[] {
  return text.split('`').map((part, i) => (i % 2 === 1 ? h('code', {}, part) : part));
}

function clip(code: string): string {
  const lines = code.split('\n');
  return lines.length > 30 ? `${lines.slice(0, 30).join('\n')}\n… ${lines.length - 30} more lines` : code;
}

/** The card's symbols on a circle, its edges as arrows: small enough to read at a glance. */
function subgraph(card: FeatureCard): SVGSVGElement {
  const nodes = [...card.symbols.map((s) => ({ ref: s.symbol, main: true })), ...card.connectors.map((c) => ({ ref: c, main: false }))];
  const width = 520;
  const height = 260;
  const at = new Map<number, { x: number; y: number }>();
  nodes.forEach((n, i) => {
    const angle = (2 * Math.PI * i) / nodes.length - Math.PI / 2;
    at.set(n.ref.id, { x: width / 2 + Math.cos(angle) * 190, y: height / 2 + Math.sin(angle) * 95 });
  });
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('class', 'card-svg');
  svg.setAttribute('data-testid', 'card-graph');
  const el = (tag: string, attrs: Record<string, string | number>, text?: string): SVGElement => {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const defs = el('defs', {});
  const marker = el('marker', { id: 'card-arrow', viewBox: '0 0 10 10', refX: 18, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto-start-reverse' });
  marker.append(el('path', { d: 'M 0 0 L 10 5 L 0 10 z', fill: '#8b8b8b' }));
  defs.append(marker);
  svg.append(defs);
  for (const e of card.edges) {
    const a = at.get(e.from.id);
    const b = at.get(e.to.id);
    if (!a || !b) continue;
    const line = el('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: `card-edge edge-${e.type}`, 'marker-end': 'url(#card-arrow)' });
    line.append(el('title', {}, `${e.from.qualified_name} ${e.type} ${e.to.qualified_name} (${e.confidence})`));
    svg.append(line);
  }
  for (const n of nodes) {
    const p = at.get(n.ref.id);
    if (!p) continue;
    svg.append(el('circle', { cx: p.x, cy: p.y, r: n.main ? 7 : 5, class: n.main ? 'card-node' : 'card-node connector' }));
    svg.append(el('text', { x: p.x, y: p.y - 11, 'text-anchor': 'middle', class: 'card-label' }, n.ref.name));
  }
  return svg;
}
