// A read-only Cypher console: the query runs in the worker (Rust), and the
// page shows its columns and rows, or the error with its line and column.
import type { QueryResult } from '../../web/src/index';
import { h } from './dom';

export interface QueryConsoleOptions {
  input: HTMLTextAreaElement;
  run: HTMLButtonElement;
  error: HTMLElement;
  result: HTMLElement;
  query(text: string): Promise<QueryResult>;
}

export class QueryConsole {
  readonly #o: QueryConsoleOptions;

  constructor(options: QueryConsoleOptions) {
    this.#o = options;
    options.run.addEventListener('click', () => void this.run());
    options.input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        void this.run();
      }
    });
  }

  enable(): void {
    this.#o.run.disabled = false;
  }

  async run(): Promise<void> {
    const { input, error, result, query } = this.#o;
    error.hidden = true;
    try {
      const answer = await query(input.value);
      result.replaceChildren(table(answer));
    } catch (failure) {
      error.textContent = failure instanceof Error ? failure.message : String(failure);
      error.hidden = false;
      result.replaceChildren();
    }
  }
}

function table({ columns, rows, truncated }: QueryResult): HTMLElement {
  const cell = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));
  return h('div', {},
    h('table', { class: 'query-table' },
      h('thead', {}, h('tr', {}, ...columns.map((c) => h('th', {}, c)))),
      h('tbody', {}, ...rows.map((row) => h('tr', {}, ...row.map((v) => h('td', {}, cell(v))))))),
    h('p', { class: 'muted', 'data-testid': 'query-count' },
      `${rows.length} ${rows.length === 1 ? 'row' : 'rows'}${truncated ? ' (cut: add a LIMIT, up to 2,000)' : ''}`));
}
