// A read-only Cypher console: the query runs in the worker (Rust), and the
// page shows its columns and rows, or the error in place (the line with a
// caret under the column). Examples and the graph schema are one click away;
// results export to CSV or JSON and can be shown on the map.
import type { GraphSchema, QueryResult } from '../../web/src/index';
import { h } from '../../web/src/ui/dom';

export interface QueryConsoleOptions {
  input: HTMLTextAreaElement;
  run: HTMLButtonElement;
  error: HTMLElement;
  result: HTMLElement;
  /** Holds the examples picker, the schema help and the export buttons. */
  tools: HTMLElement;
  query(text: string): Promise<QueryResult>;
  schema(): Promise<GraphSchema>;
  /** Shows these qualified names on the map. */
  showInMap(keys: string[]): void;
}

const EXAMPLES: [string, string][] = [
  ['Classes by number of methods', 'MATCH (c:CLASS)-[:HAS_METHOD]->(m:METHOD)\nRETURN c.name, count(m) AS methods\nORDER BY methods DESC LIMIT 10'],
  ['Most called functions', 'MATCH (caller)-[:CALLS]->(f:FUNCTION)\nRETURN f.qualified_name, count(caller) AS callers\nORDER BY callers DESC LIMIT 10'],
  ['Subclasses and their parents', 'MATCH (c:CLASS)-[:INHERITS]->(p:CLASS)\nRETURN c.qualified_name, p.qualified_name LIMIT 50'],
  ['Most complex functions', 'MATCH (f:FUNCTION)\nWHERE f.cyclomatic_complexity > 5\nRETURN f.qualified_name, f.cyclomatic_complexity AS complexity\nORDER BY complexity DESC LIMIT 20'],
  ['Callers two hops away', "MATCH (a)-[:CALLS*1..2]->(b:FUNCTION)\nWHERE b.name = 'main'\nRETURN DISTINCT a.qualified_name LIMIT 50"],
  ['Modules importing the most', 'MATCH (m:MODULE)-[:IMPORTS]->(x)\nRETURN m.qualified_name, count(x) AS imports\nORDER BY imports DESC LIMIT 10'],
];

export class QueryConsole {
  readonly #o: QueryConsoleOptions;
  #last: QueryResult | undefined;
  readonly #exports: HTMLElement;
  #schemaShown = false;
  readonly #schemaBox: HTMLElement;

  constructor(options: QueryConsoleOptions) {
    this.#o = options;
    options.run.addEventListener('click', () => void this.run());
    options.input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        void this.run();
      }
    });
    const examples = h('select', { class: 'query-examples', 'aria-label': 'Example queries', 'data-testid': 'query-examples' },
      h('option', { value: '' }, 'Examples…'),
      ...EXAMPLES.map(([title], i) => h('option', { value: String(i) }, title)));
    examples.addEventListener('change', () => {
      const example = EXAMPLES[Number(examples.value)];
      if (examples.value !== '' && example) {
        options.input.value = example[1];
        void this.run();
      }
      examples.value = '';
    });
    const schemaButton = h('button', { type: 'button', class: 'chip-button', 'data-testid': 'query-schema-button' }, 'Schema');
    this.#schemaBox = h('div', { class: 'query-schema', 'data-testid': 'query-schema', hidden: true });
    schemaButton.addEventListener('click', () => void this.#toggleSchema());
    const csv = h('button', { type: 'button', class: 'chip-button', 'data-testid': 'export-csv' }, 'CSV');
    const json = h('button', { type: 'button', class: 'chip-button', 'data-testid': 'export-json' }, 'JSON');
    const map = h('button', { type: 'button', class: 'chip-button', 'data-testid': 'query-map' }, 'Show in map');
    csv.addEventListener('click', () => this.#last && download('query.csv', 'text/csv', toCsv(this.#last)));
    json.addEventListener('click', () => this.#last && download('query.json', 'application/json', JSON.stringify(this.#last, null, 2)));
    map.addEventListener('click', () => this.#last && options.showInMap(nodeKeys(this.#last)));
    this.#exports = h('span', { class: 'query-exports', hidden: true }, csv, json, map);
    options.tools.replaceChildren(examples, schemaButton, this.#exports, this.#schemaBox);
  }

  enable(): void {
    this.#o.run.disabled = false;
  }

  async run(): Promise<void> {
    const { input, error, result, query } = this.#o;
    error.hidden = true;
    try {
      const answer = await query(input.value);
      this.#last = answer;
      this.#exports.hidden = false;
      result.replaceChildren(table(answer));
    } catch (failure) {
      this.#last = undefined;
      this.#exports.hidden = true;
      const message = failure instanceof Error ? failure.message : String(failure);
      error.replaceChildren(h('span', {}, message), ...inPlace(input, message));
      error.hidden = false;
      result.replaceChildren();
    }
  }

  async #toggleSchema(): Promise<void> {
    this.#schemaShown = !this.#schemaShown;
    this.#schemaBox.hidden = !this.#schemaShown;
    if (!this.#schemaShown || this.#schemaBox.childElementCount > 0) return;
    const schema = await this.#o.schema();
    this.#schemaBox.replaceChildren(
      h('h4', {}, 'Node labels'),
      h('dl', {}, ...schema.node_labels.flatMap((l) => [
        h('dt', {}, l.label),
        h('dd', {}, `${l.description}. `, h('code', {}, l.properties.join(', '))),
      ])),
      h('h4', {}, 'Edge types'),
      h('dl', {}, ...schema.edge_types.flatMap((e) => [
        h('dt', {}, e.type),
        h('dd', {}, `${e.description}. `, h('code', {}, e.properties.join(', '))),
      ])),
    );
  }
}

/** The failing line with a caret under the column the engine names, and the cursor moved there. */
function inPlace(input: HTMLTextAreaElement, message: string): HTMLElement[] {
  const at = /line (\d+), column (\d+)/.exec(message);
  if (!at) return [];
  const line = Number(at[1]);
  const column = Number(at[2]);
  const lines = input.value.split('\n');
  const text = lines[line - 1];
  if (text === undefined) return [];
  const offset = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0) + column - 1;
  input.setSelectionRange(offset, Math.min(offset + 1, input.value.length));
  return [h('pre', { class: 'query-caret', 'data-testid': 'query-caret' }, `${text}\n${' '.repeat(Math.max(0, column - 1))}^`)];
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && 'qualified_name' in value) return String((value as { qualified_name: unknown }).qualified_name);
  return JSON.stringify(value);
}

function table({ columns, rows, truncated }: QueryResult): HTMLElement {
  return h('div', {},
    h('table', { class: 'query-table' },
      h('thead', {}, h('tr', {}, ...columns.map((c) => h('th', {}, c)))),
      h('tbody', {}, ...rows.map((row) => h('tr', {}, ...row.map((v) => h('td', {}, cellText(v))))))),
    h('p', { class: 'muted', 'data-testid': 'query-count' },
      `${rows.length} ${rows.length === 1 ? 'row' : 'rows'}${truncated ? ' (cut: add a LIMIT, up to 2,000)' : ''}`));
}

/** RFC 4180 CSV: every cell quoted when it holds a comma, quote or line break. */
export function toCsv({ columns, rows }: QueryResult): string {
  const quote = (s: string) => (/[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s);
  return [columns, ...rows.map((row) => row.map(cellText))].map((r) => r.map(quote).join(',')).join('\r\n') + '\r\n';
}

/** Qualified names in a result: node cells, and string cells (they may be names). */
function nodeKeys({ rows }: QueryResult): string[] {
  const keys = new Set<string>();
  for (const row of rows) {
    for (const value of row) {
      if (typeof value === 'string') keys.add(value);
      else if (value && typeof value === 'object' && 'qualified_name' in value) keys.add(String((value as { qualified_name: unknown }).qualified_name));
    }
  }
  return [...keys];
}

/** Saves a file made in the tab: a blob URL, never a network request. */
function download(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
