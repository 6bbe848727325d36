// The open symbol: signature and docstring, metrics, members, callers and
// callees with the confidence and reason of each edge, the tests that reach
// it, and on request its impact (what depends on it, up to 4 hops). The graph
// work is Rust's: this only shows what the worker returns.
import { CostlyQuery, type Hop, type NodeRef, type Reached, type Reference, type SymbolContext } from '../index';
import { h, symbolLabel, whereOf } from './dom';

export interface SymbolPanelActions {
  open(node: NodeRef): void;
  /** Shows the symbol's neighbourhood on the map (no button where there is no map). */
  showInMap?(symbol: string): void;
  /** Rejects with a `CostlyQuery` where it would fetch more than `allowBytes` (a split bundle's hub). */
  impact(symbol: string, depth: number, allowBytes?: number): Promise<Reached[]>;
  references(symbol: string): Promise<Reference[]>;
  /** Opens a file at a line (a reference's place). */
  openAt(file: string, line: number, detail: string): void;
}

const IMPACT_DEPTH = 4;

export class SymbolPanel {
  readonly #root: HTMLElement;
  readonly #actions: SymbolPanelActions;
  /** The symbol shown; an impact answer for an older one is dropped. */
  #shown: string | undefined;

  constructor(root: HTMLElement, actions: SymbolPanelActions) {
    this.#root = root;
    this.#actions = actions;
  }

  show(context: SymbolContext): void {
    const s = context.symbol;
    this.#shown = s.qualified_name;
    const metrics = [
      context.cyclomatic_complexity === null ? null : `complexity ${context.cyclomatic_complexity}`,
      context.loc === null ? null : `${context.loc} loc`,
      `fan-in ${context.fan_in}`,
      `fan-out ${context.fan_out}`,
    ].filter((m): m is string => m !== null);
    const showInMap = this.#actions.showInMap?.bind(this.#actions);
    const mapButton = showInMap ? h('button', { type: 'button', class: 'chip-button', 'data-testid': 'show-in-map' }, 'Show in map') : null;
    mapButton?.addEventListener('click', () => showInMap?.(s.qualified_name));
    const impactBox = h('div', { class: 'symbol-impact', 'data-testid': 'impact' });
    const impactButton = h('button', { type: 'button', class: 'chip-button', 'data-testid': 'impact-button' }, `Impact (${IMPACT_DEPTH} hops)`);
    impactButton.addEventListener('click', () => void this.#impact(s.qualified_name, impactBox));
    const referencesBox = h('div', { class: 'symbol-references', 'data-testid': 'references' });
    const referencesButton = h('button', { type: 'button', class: 'chip-button', 'data-testid': 'references-button', title: 'Find references (Shift+F12)' }, 'References');
    referencesButton.addEventListener('click', () => void this.#references(s.qualified_name, referencesBox));
    const docs = [
      context.signature ? h('pre', { class: 'symbol-signature', 'data-testid': 'signature' }, context.signature) : null,
      context.docstring ? h('p', { class: 'symbol-doc', 'data-testid': 'docstring' }, firstParagraph(context.docstring)) : null,
    ];
    const parts: (HTMLElement | null)[] = [
      h('header', { class: 'symbol-head' },
        h('span', { class: 'symbol-kind' }, s.kind),
        withClass(symbolLabel(s, { where: s.file ? `${s.file}:${s.start_line}` : undefined }), 'symbol-name'),
        h('span', { class: 'muted', 'data-testid': 'metrics' }, metrics.join(' · ')),
        h('span', { class: 'symbol-actions' }, referencesButton, mapButton, impactButton)),
      ...docs,
      context.declares ? this.#nodes('declares', 'Defined at', [context.declares], place) : null,
      context.declarations.length > 0 ? this.#nodes('declarations', 'Declared at', context.declarations, place) : null,
      context.members.length > 0 ? this.#nodes('members', 'Members', context.members) : null,
      this.#list('callers', 'Callers', context.callers, (hop) => hop.from),
      this.#list('callees', 'Callees', context.callees, (hop) => hop.to),
      this.#reached('tests', 'Tests that reach it', context.tests),
      referencesBox,
      impactBox,
    ];
    this.#root.replaceChildren(...parts.filter((p): p is HTMLElement => p !== null));
    this.#root.hidden = false;
  }

  hide(): void {
    this.#shown = undefined;
    this.#root.hidden = true;
    this.#root.replaceChildren();
  }

  /** Finds references to the shown symbol (Shift+F12); false when none is shown. */
  findReferences(): boolean {
    const button = this.#root.querySelector<HTMLButtonElement>('[data-testid="references-button"]');
    if (this.#root.hidden || !button) return false;
    button.click();
    return true;
  }

  async #references(symbol: string, box: HTMLElement): Promise<void> {
    box.replaceChildren(h('p', { class: 'muted' }, 'Finding references…'));
    try {
      const found = await this.#actions.references(symbol);
      if (this.#shown !== symbol) return;
      const byFile = new Map<string, Reference[]>();
      for (const r of found) byFile.set(r.file, [...(byFile.get(r.file) ?? []), r]);
      const files = [...byFile];
      box.replaceChildren(
        h('h4', {}, `References: ${found.length} in ${files.length} file${files.length === 1 ? '' : 's'}`),
        found.length === 0
          ? h('p', { class: 'muted' }, 'None found')
          : h('ul', { class: 'reference-files' }, ...files.map(([file, refs]) =>
              h('li', { 'data-file': file },
                h('span', { class: 'reference-file' }, file),
                h('ul', {}, ...refs.map((r) => this.#reference(r)))))),
      );
    } catch (error) {
      box.replaceChildren(h('p', { class: 'query-error' }, error instanceof Error ? error.message : String(error)));
    }
  }

  #reference(r: Reference): HTMLElement {
    const where = `${r.file}:${r.line}`;
    const button = h('button', { type: 'button', class: 'link' }, `L${r.line}  ${r.from}`);
    button.addEventListener('click', () =>
      this.#actions.openAt(r.file, r.line, `${r.type} ${r.symbol} from ${r.from} · ${where} (${r.confidence.toFixed(2)} ${r.reason})`));
    return h('li', { 'data-testid': 'reference', 'data-line': r.line, 'data-from': r.from, 'data-type': r.type },
      button, precise(r.reason), h('span', { class: 'edge-meta' }, `${r.type.toLowerCase()} · ${r.confidence.toFixed(2)} ${r.reason}`));
  }

  async #impact(symbol: string, box: HTMLElement, allowBytes?: number): Promise<void> {
    box.replaceChildren(h('p', { class: 'muted' }, 'Walking dependents…'));
    try {
      const reached = await this.#actions.impact(symbol, IMPACT_DEPTH, allowBytes);
      if (this.#shown !== symbol) return;
      box.replaceChildren(this.#reached('impact-list', `Impact: ${reached.length} dependents`, reached));
    } catch (error) {
      if (this.#shown !== symbol) return;
      if (error instanceof CostlyQuery) {
        // A hub of a split bundle: the reader says whether to fetch that much.
        const megabytes = (error.bytes / 1e6).toFixed(1);
        const fetch = h('button', { type: 'button', class: 'chip-button', 'data-testid': 'impact-fetch' }, `Fetch it (${megabytes} MB or more)`);
        fetch.addEventListener('click', () => void this.#impact(symbol, box, Number.MAX_SAFE_INTEGER));
        box.replaceChildren(h('p', { class: 'muted', 'data-testid': 'impact-costly' },
          `Its dependents reach across much of the project: walking them reads at least ${megabytes} MB more of the bundle. `, fetch));
        return;
      }
      box.replaceChildren(h('p', { class: 'query-error' }, error instanceof Error ? error.message : String(error)));
    }
  }

  #button(node: NodeRef): HTMLButtonElement {
    const button = h('button', { type: 'button', class: 'link', disabled: node.file === null }, symbolLabel(node, { where: whereOf(node) }));
    button.addEventListener('click', () => this.#actions.open(node));
    return button;
  }

  /** A list of symbols, each a button, with `meta` beside it (its kind, unless told). */
  #nodes(testId: string, title: string, nodes: NodeRef[], meta: (node: NodeRef) => string = (node) => node.kind): HTMLElement {
    return h('div', { class: 'symbol-list', 'data-testid': testId },
      h('h4', {}, `${title} (${nodes.length})`),
      h('ul', {}, ...nodes.map((node) =>
        h('li', { 'data-symbol': node.qualified_name }, this.#button(node), h('span', { class: 'edge-meta' }, meta(node))))),
    );
  }

  #reached(testId: string, title: string, reached: Reached[]): HTMLElement {
    return h('div', { class: 'symbol-list', 'data-testid': testId },
      h('h4', {}, `${title}${testId === 'impact-list' ? '' : ` (${reached.length})`}`),
      reached.length === 0
        ? h('p', { class: 'muted' }, 'None found')
        : h('ul', {}, ...reached.map((r) =>
            h('li', { 'data-symbol': r.node.qualified_name },
              this.#button(r.node),
              h('span', { class: 'edge-meta', title: r.path.map((hop) => `${hop.from.name} -${hop.type}-> ${hop.to.name}`).join('\n') },
                `${r.confidence.toFixed(2)} · ${r.depth} hop${r.depth === 1 ? '' : 's'}`)))),
    );
  }

  #list(testId: string, title: string, hops: Hop[], other: (hop: Hop) => NodeRef): HTMLElement {
    return h('div', { class: 'symbol-list', 'data-testid': testId },
      h('h4', {}, `${title} (${hops.length})`),
      hops.length === 0
        ? h('p', { class: 'muted' }, 'None found')
        : h('ul', {}, ...hops.map((hop) => {
            const node = other(hop);
            return h('li', { 'data-symbol': node.qualified_name, 'data-reason': hop.reason },
              this.#button(node),
              precise(hop.reason),
              h('span', { class: 'edge-meta', title: `line ${hop.line ?? '?'}` },
                `${hop.confidence.toFixed(2)} ${hop.reason}${hop.line === null ? '' : ` · L${hop.line}`}`));
          })),
    );
  }
}

/** The mark of an edge a SCIP index gave or confirmed: a compiler's, not an inference. */
function precise(reason: string): HTMLElement | null {
  return reason === 'scip' || reason === 'scip-confirmed'
    ? h('span', { class: 'precise', 'data-testid': 'precise', title: reason === 'scip' ? 'From a SCIP index (a compiler-grade indexer)' : "Fathom's inference, confirmed by a SCIP index" }, 'precise')
    : null;
}

function withClass<T extends HTMLElement>(element: T, name: string): T {
  element.classList.add(name);
  return element;
}

/** A docstring's first paragraph: the summary a panel has room for. */
function firstParagraph(doc: string): string {
  const paragraph = doc.trim().split(/\n\s*\n/)[0] ?? '';
  return paragraph.replace(/\s+/g, ' ');
}

/** Where a symbol is written: `include/jv.h:42`. */
function place(node: NodeRef): string {
  return node.file === null ? 'outside the archive' : `${node.file}:${node.start_line}`;
}
