// "Which tests should I run for this change, and what else could break?"
// The engine does all of it (reading the diff, finding the changed
// definitions, walking the graph, fusing the lanes, abstaining); this panel
// takes the change, draws the answer with its evidence, and opens code.
import type { Change, Hop, NodeRef, RecommendedTest, TestsFor } from '../../web/src/index';
import { h, pathLabel, symbolLink } from '../../web/src/ui/dom';
import { type AnswerNode, answerGraph } from './answergraph';

export interface TestsForActions {
  testsFor(change: Change): Promise<TestsFor>;
  open(node: NodeRef): void;
  showInMap(keys: string[]): void;
}

/** The tests whose evidence the graph draws: the best ones, which the list explains in full. */
const GRAPH_TESTS = 8;

const EXAMPLE = 'Paste a unified diff (git diff, a .patch) or describe the change, e.g. “retry failed uploads”.';

/** A diff is recognised by its hunk or file headers; anything else is a description. */
function looksLikeDiff(text: string): boolean {
  return /^(@@ -\d|diff --git |--- \S|Index: )/m.test(text);
}

export class TestsForView {
  readonly #actions: TestsForActions;
  readonly #input: HTMLTextAreaElement;
  readonly #symbols: HTMLInputElement;
  readonly #run: HTMLButtonElement;
  readonly #result: HTMLElement;
  #generation = 0;

  constructor(root: HTMLElement, actions: TestsForActions) {
    this.#actions = actions;
    this.#input = h('textarea', {
      class: 'tests-input', rows: 8, spellcheck: false, placeholder: EXAMPLE,
      'aria-label': 'A diff or a description of the change', 'data-testid': 'tests-for-input',
    });
    this.#symbols = h('input', {
      type: 'text', class: 'tests-symbols', placeholder: 'and/or symbols: pkg.mod.Class.method, …', spellcheck: false,
      'aria-label': 'Changed symbols, by qualified name', 'data-testid': 'tests-for-symbols',
    });
    this.#run = h('button', { type: 'button', class: 'button primary', 'data-testid': 'tests-for-run', disabled: true }, 'Find tests');
    this.#run.addEventListener('click', () => void this.run());
    this.#input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        void this.run();
      }
    });
    this.#result = h('div', { class: 'tests-result', 'data-testid': 'tests-for-result', 'aria-live': 'polite' },
      h('p', { class: 'empty' }, 'The tests to run come ranked, each with the path from the change to it; the impact lists what depends on the change, by package.'));
    root.replaceChildren(
      h('header', { class: 'tests-form' }, this.#input,
        h('div', { class: 'tests-row' }, this.#symbols, this.#run,
          h('span', { class: 'muted' }, 'Ctrl+Enter'))),
      this.#result,
    );
  }

  /** Enables the panel once an index is open. */
  enable(on: boolean): void {
    this.#run.disabled = !on;
  }

  async run(): Promise<void> {
    const text = this.#input.value;
    const symbols = this.#symbols.value.split(/[\s,]+/).filter(Boolean);
    if (!text.trim() && symbols.length === 0) {
      this.#result.replaceChildren(h('p', { class: 'query-error' }, 'Give a diff, a description or a symbol.'));
      return;
    }
    const change: Change = looksLikeDiff(text) ? { diff: text, symbols } : { text, symbols };
    const generation = ++this.#generation;
    this.#result.dataset.state = 'running';
    this.#result.replaceChildren(h('p', { class: 'muted' }, 'Reading the change…'));
    try {
      const found = await this.#actions.testsFor(change);
      if (generation !== this.#generation) return;
      this.#render(found);
      this.#result.dataset.state = found.abstained ? 'abstained' : 'ready';
    } catch (error) {
      if (generation !== this.#generation) return;
      this.#result.dataset.state = 'failed';
      this.#result.replaceChildren(h('p', { class: 'query-error', role: 'alert', 'data-testid': 'tests-for-error' },
        error instanceof Error ? error.message : String(error)));
    }
  }

  #link(node: NodeRef, container = true): HTMLButtonElement {
    return symbolLink(node, (n) => this.#actions.open(n), { container });
  }

  #render(found: TestsFor): void {
    const keys = [...found.changed.map((c) => c.symbol.qualified_name), ...found.tests.map((t) => t.test.qualified_name)];
    const map = h('button', { type: 'button', class: 'chip-button', 'data-testid': 'tests-for-map' }, 'Show in map');
    map.addEventListener('click', () => this.#actions.showInMap(keys));
    const parts: (HTMLElement | null)[] = [
      found.abstained
        ? h('p', { class: 'abstain', role: 'status', 'data-testid': 'tests-for-abstain' },
            h('strong', {}, 'No recommendation: '), 'the evidence is too weak to name tests.')
        : null,
      found.notes.length > 0
        ? h('ul', { class: 'tests-notes', 'data-testid': 'tests-for-notes' }, ...found.notes.map((n) => h('li', {}, n)))
        : null,
      found.changed.length > 0
        ? h('section', { 'data-testid': 'tests-for-changed' }, h('h3', {}, `Read as a change to (${found.changed.length})`),
            h('ul', { class: 'tests-changed' }, ...found.changed.map((c) => h('li', {}, this.#link(c.symbol),
              h('span', { class: 'muted' }, ` from the ${c.from}${c.from === 'text' ? `, weight ${c.weight.toFixed(2)}` : ''}`)))))
        : null,
      found.tests.length > 0
        ? h('section', {}, h('h3', {}, `Tests to run (${found.tests.length}) `, map),
            this.#graph(found),
            h('ol', { class: 'tests-list' }, ...found.tests.map((t) => this.#test(t))))
        : null,
      found.impact.length > 0 ? this.#impact(found) : null,
    ];
    this.#result.replaceChildren(...parts.filter((p): p is HTMLElement => p !== null));
  }

  /** How the best tests reach the change: their evidence paths as one graph. */
  #graph(found: TestsFor): SVGSVGElement | null {
    const tests = found.tests.filter((t) => t.path.length > 0).slice(0, GRAPH_TESTS);
    if (tests.length === 0) return null;
    const nodes: AnswerNode[] = [
      ...found.changed.map((c) => ({ ref: c.symbol, role: 'changed' as const })),
      ...tests.map((t) => ({ ref: t.test, role: 'test' as const })),
      ...tests.flatMap((t) => t.path.flatMap((hop) => [hop.from, hop.to])).map((ref) => ({ ref, role: 'connector' as const })),
    ];
    return answerGraph(nodes, tests.flatMap((t) => t.path), (n) => this.#actions.open(n), 'tests-for-graph');
  }

  #test(t: RecommendedTest): HTMLElement {
    const lanes = [
      t.graph_rank !== null ? `graph #${t.graph_rank}` : null,
      t.lexical_rank !== null ? `BM25 #${t.lexical_rank}` : null,
      t.dense_rank !== null ? `dense #${t.dense_rank}` : null,
    ].filter(Boolean).join(' · ');
    return h('li', { class: 'tests-item', 'data-testid': 'recommended-test', 'data-symbol': t.test.qualified_name },
      h('header', {}, this.#link(t.test),
        pathLabel(t.test.file ?? '', String(t.test.start_line)),
        h('span', { class: 'score', title: 'reciprocal rank fusion of the lanes' }, t.score.toFixed(4))),
      h('div', { class: 'muted' }, lanes,
        t.graph_score !== null ? ` · path confidence ${t.graph_score.toFixed(2)}` : '',
        t.similarity !== null ? ` · similarity ${t.similarity.toFixed(2)}` : '',
        t.matched_terms.length > 0 ? ` · terms: ${t.matched_terms.join(', ')}` : ''),
      t.path.length > 0 ? h('ol', { class: 'evidence', 'data-testid': 'evidence' }, ...t.path.map((hop) => this.#hop(hop))) : null);
  }

  #hop(hop: Hop): HTMLElement {
    return h('li', { class: 'hop', 'data-type': hop.type },
      this.#link(hop.from, false), ' ',
      h('span', { class: `edge edge-${hop.type}`, title: hop.reason }, `${hop.type} ${hop.confidence.toFixed(2)}`), ' ',
      this.#link(hop.to, false),
      hop.line !== null ? h('span', { class: 'muted' }, ` line ${hop.line}`) : null);
  }

  #impact(found: TestsFor): HTMLElement {
    const total = found.impact.reduce((n, g) => n + g.dependents.length, 0);
    return h('section', { 'data-testid': 'tests-for-impact' },
      h('h3', {}, `Impact: ${total} dependents in ${found.impact.length} packages`),
      ...found.impact.map((group) => h('details', { class: 'impact-group', open: found.impact.length <= 3 },
        h('summary', {}, h('code', {}, group.package || '(top level)'), h('span', { class: 'muted' }, ` ${group.dependents.length}`)),
        h('ul', {}, ...group.dependents.map((d) => h('li', {}, this.#link(d.node),
          h('span', { class: 'muted' }, ` ${d.depth} hop${d.depth === 1 ? '' : 's'}, confidence ${d.confidence.toFixed(2)}`,
            d.path.length > 0 ? ` via ${d.path.map((p) => p.type).join(' → ')}` : '')))))));
  }
}
