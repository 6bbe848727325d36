// The feature card: one view answering "how does X work" from the engine's
// card (Rust builds it all: the implementing definitions, the entry points
// that reach them, the settings that change them, where they sit, the edges
// that connect them, their tests, and the Markdown). This draws it in that
// order, tests last, with the graph of its symbols, and copies the Markdown
// as context for an LLM.
import type { FeatureCard, NodeRef } from '../../web/src/index';
import { h, pathLabel, symbolLink } from '../../web/src/ui/dom';
import { type AnswerNode, answerGraph } from './answergraph';

export interface FeatureCardActions {
  build(query: string, budget: number): Promise<FeatureCard>;
  open(node: NodeRef): void;
  showInMap(keys: string[]): void;
}

const BUDGETS = [1000, 2000, 4000, 8000, 16000, 32000];

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

  /** A summary sentence: the symbols it names in `code` are links that lead with their own names; other code stays code. */
  #sentence(text: string, known: Map<string, NodeRef>): (string | HTMLElement)[] {
    return text.split('`').map((part, i) => {
      if (i % 2 === 0) return part;
      const node = known.get(part);
      return node ? this.#link(node) : h('code', {}, part);
    });
  }

  #render(card: FeatureCard): void {
    // The card's symbols, the symbols that connect them, and the tests that
    // reach them, with every edge among them: its graph, and the names its
    // sentences may link.
    const nodes: AnswerNode[] = [
      ...card.symbols.map((s) => ({ ref: s.symbol, role: 'symbol' as const })),
      ...card.connectors.map((ref) => ({ ref, role: 'connector' as const })),
      ...card.tests.map((t) => ({ ref: t.node, role: 'test' as const })),
      ...card.tests.flatMap((t) => t.path.flatMap((hop) => [hop.from, hop.to])).map((ref) => ({ ref, role: 'connector' as const })),
    ];
    const edges = [...card.edges, ...card.tests.flatMap((t) => t.path)];
    const known = new Map(nodes.map((n) => [n.ref.qualified_name, n.ref]));
    const keys = [...card.symbols.map((s) => s.symbol.qualified_name), ...card.connectors.map((c) => c.qualified_name)];
    const mapButton = h('button', { type: 'button', class: 'chip-button', 'data-testid': 'card-map' }, 'Show in map');
    mapButton.addEventListener('click', () => this.#actions.showInMap(keys));
    for (const entry of card.entry_points) known.set(entry.symbol.qualified_name, entry.symbol);
    const said = (testId: string, title: string, sentences: string[]): HTMLElement | null =>
      sentences.length > 0
        ? h('section', { 'data-testid': testId }, h('h3', {}, title),
            h('ul', { class: 'card-summary' }, ...sentences.map((s) => h('li', {}, ...this.#sentence(s, known)))))
        : null;
    const parts: (HTMLElement | null)[] = [
      h('h2', { class: 'card-title' }, card.query),
      h('p', { class: 'muted' }, `${card.mode} search · ${card.tokens.toLocaleString('en-US')} of ${card.budget.toLocaleString('en-US')} tokens as context`),
      h('section', { 'data-testid': 'card-symbols' }, h('h3', {}, 'Implementation'),
        ...card.symbols.map((s) => h('article', { class: 'card-symbol' },
          h('header', {}, this.#link(s.symbol), s.overloads > 1 ? h('span', { class: 'muted', 'data-testid': 'card-overloads' }, ` 1 of ${s.overloads} overloads `) : null,
            pathLabel(s.symbol.file ?? '', `${s.symbol.start_line}-${s.symbol.end_line}`)),
          s.doc ? h('p', { class: 'symbol-doc' }, s.doc) : null,
          s.code ? h('pre', { class: 'card-code', tabindex: 0, 'aria-label': `Code of ${s.symbol.qualified_name}` }, clip(s.code)) : null))),
      said('card-entry-points', 'Entry points', card.sentences.entry_points),
      said('card-settings', 'Settings', card.sentences.settings),
      said('card-placement', 'Where it sits', card.sentences.placement),
      h('section', {}, h('h3', {}, 'Structure'),
        h('ul', { class: 'card-summary', 'data-testid': 'card-summary' }, ...card.summary.map((s) => h('li', {}, ...this.#sentence(s, known))))),
      card.edges.length + card.tests.length > 0
        ? h('section', { class: 'card-graph' }, h('h3', {}, 'How they connect ', mapButton),
            answerGraph(nodes, edges, (n) => this.#actions.open(n), 'card-graph'))
        : null,
      card.tests.length > 0
        ? h('section', { 'data-testid': 'card-tests' }, h('h3', {}, `Tests (${card.tests.length})`),
            h('ul', {}, ...card.tests.map((t) => h('li', {}, this.#link(t.node),
              h('span', { class: 'muted' }, t.depth === 0 ? ' matches the question' : ` ${t.depth} call${t.depth === 1 ? '' : 's'} away`)))))
        : null,
      h('details', { class: 'card-md' }, h('summary', {}, 'Markdown context'),
        h('textarea', { class: 'card-markdown', readonly: true, rows: 12, 'aria-label': 'The card as Markdown', 'data-testid': 'card-markdown' }, card.markdown)),
    ];
    this.#body.replaceChildren(...parts.filter((p): p is HTMLElement => p !== null));
  }
}

function clip(code: string): string {
  const lines = code.split('\n');
  return lines.length > 30 ? `${lines.slice(0, 30).join('\n')}\n… ${lines.length - 30} more lines` : code;
}
