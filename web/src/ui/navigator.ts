// Opening code: a search hit, a graph node, a definition under a click or a
// reference's line, each shown in the code view with its lines highlighted and
// the symbol's context in the symbol panel. Shared by the app and the
// <fathom-explorer> component; what to do around an open (switch tabs, write
// the address) is the caller's.
import type { FathomClient } from '../client';
import type { NodeRef, SearchHit } from '../protocol';
import type { CodeView, LineRange } from './codeview';
import { citation } from './search';
import { splitName } from './dom';
import type { SymbolPanel } from './symbolpanel';

export interface NavigatorHooks {
  /** Before anything loads: show the code view, say. */
  beforeOpen?(): void;
  /** After the code is shown: remember where, say in the address. */
  opened?(where: { file: string; line: number; symbol: string | undefined }): void;
  error(message: string): void;
}

export class Navigator {
  readonly #client: FathomClient;
  readonly #code: CodeView;
  readonly #panel: SymbolPanel;
  readonly #hooks: NavigatorHooks;
  readonly #codeRoot: HTMLElement;
  /** Increases with every open, so a slow file load cannot override a later click. */
  #generation = 0;

  constructor(client: FathomClient, code: CodeView, codeRoot: HTMLElement, panel: SymbolPanel, hooks: NavigatorHooks) {
    this.#client = client;
    this.#code = code;
    this.#codeRoot = codeRoot;
    this.#panel = panel;
    this.#hooks = hooks;
  }

  openHit(hit: SearchHit): Promise<void> {
    return this.open(hit.file, { start: hit.start_line, end: hit.end_line }, `${named(hit.kind, hit.symbol, hit.name)} · ${citation(hit)}`, hit.symbol);
  }

  /** Opens a graph node's definition. */
  openNode(node: NodeRef): Promise<void> {
    if (node.file === null) return Promise.resolve();
    const where = `${node.file}:${node.start_line}-${node.end_line}`;
    return this.open(node.file, { start: node.start_line, end: node.end_line }, `${named(node.kind, node.qualified_name, node.name)} · ${where}`, node.qualified_name);
  }

  /** A click on an identifier: its definition (the engine's best guess, with its confidence). */
  async goToDefinition(path: string, line: number, column: number): Promise<void> {
    const found = await this.#client.definitionAt(path, line, column).catch(() => []);
    const best = found.find((d) => d.file !== null);
    this.#codeRoot.dataset.definition = best ? best.symbol : '';
    if (!best || best.file === null) return;
    const where = `${best.file}:${best.start_line}-${best.end_line}`;
    await this.open(best.file, { start: best.start_line, end: best.end_line },
      `${named(best.kind, best.symbol, '')} · ${where} · found by ${best.found_by} (${best.confidence.toFixed(2)})`, best.symbol);
  }

  /** Shows `file` with `lines` highlighted, and `symbol`'s context in the panel when given. */
  async open(file: string, lines: LineRange, detail: string, symbol?: string): Promise<void> {
    const generation = ++this.#generation;
    this.#hooks.beforeOpen?.();
    try {
      if (!this.#code.isShowing(file)) {
        const text = await this.#client.file(file);
        if (generation !== this.#generation) return;
        if (text === undefined) throw new Error('the file is not in the index');
        this.#code.load(file, text);
        // Colours arrive after the text: a big file is readable at once.
        void this.#client.highlight(file).then((h) => h && this.#code.applyHighlights(file, h), () => undefined);
      }
      this.#code.highlight(lines, detail);
      this.#hooks.opened?.({ file, line: lines.start, symbol });
      if (symbol === undefined) {
        this.#panel.hide();
        return;
      }
      // Callers and callees are extra: if they fail, the code still stands.
      const context = await this.#client.symbol(symbol).catch(() => null);
      if (generation !== this.#generation) return;
      if (context) this.#panel.show(context);
      else this.#panel.hide();
    } catch (error) {
      this.#hooks.error(`Could not open ${file}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** A symbol as the code header names it, its own name first: `method findByUsername in com.acme.repo.UserRepository`. */
function named(kind: string, qualified: string, name: string): string {
  const parts = splitName(qualified, name);
  return `${kind} ${parts.name}${parts.container ? ` in ${parts.container}` : ''}`;
}
