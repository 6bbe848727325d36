// Callers and callees of the open symbol, each with the confidence and the
// reason of its edge; clicking one opens it. The graph work is Rust's: this
// only shows what the worker returns.
import type { Hop, NodeRef, SymbolContext } from '../../web/src/index';
import { h } from './dom';

export class SymbolPanel {
  readonly #root: HTMLElement;
  readonly #open: (node: NodeRef) => void;

  constructor(root: HTMLElement, open: (node: NodeRef) => void) {
    this.#root = root;
    this.#open = open;
  }

  show(context: SymbolContext): void {
    const s = context.symbol;
    const metrics = [
      context.cyclomatic_complexity === null ? null : `complexity ${context.cyclomatic_complexity}`,
      context.loc === null ? null : `${context.loc} loc`,
      `fan-in ${context.fan_in}`,
      `fan-out ${context.fan_out}`,
    ].filter((m): m is string => m !== null);
    this.#root.replaceChildren(
      h('header', { class: 'symbol-head' },
        h('span', { class: 'symbol-kind' }, s.kind),
        h('span', { class: 'symbol-name', title: s.qualified_name }, s.qualified_name),
        h('span', { class: 'muted' }, metrics.join(' · '))),
      this.#list('callers', 'Callers', context.callers, (hop) => hop.from),
      this.#list('callees', 'Callees', context.callees, (hop) => hop.to),
    );
    this.#root.hidden = false;
  }

  hide(): void {
    this.#root.hidden = true;
    this.#root.replaceChildren();
  }

  #list(testId: string, title: string, hops: Hop[], other: (hop: Hop) => NodeRef): HTMLElement {
    return h('div', { class: 'symbol-list', 'data-testid': testId },
      h('h4', {}, `${title} (${hops.length})`),
      hops.length === 0
        ? h('p', { class: 'muted' }, 'None found')
        : h('ul', {}, ...hops.map((hop) => {
            const node = other(hop);
            const item = h('li', { 'data-symbol': node.qualified_name, 'data-reason': hop.reason },
              h('button', { type: 'button', class: 'link', disabled: node.file === null }, node.qualified_name),
              h('span', { class: 'edge-meta', title: `line ${hop.line ?? '?'}` },
                `${hop.confidence.toFixed(2)} ${hop.reason}${hop.line === null ? '' : ` · L${hop.line}`}`));
            item.querySelector('button')?.addEventListener('click', () => this.#open(node));
            return item;
          })),
    );
  }
}
