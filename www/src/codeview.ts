// Read-only source view: line numbers, a highlighted line range, scrolled into view.
import { byTestId, h, required } from './dom';

export interface LineRange {
  start: number;
  end: number;
}

export class CodeView {
  readonly #path: HTMLElement;
  readonly #meta: HTMLElement;
  readonly #scroller: HTMLElement;
  readonly #code: HTMLElement;
  #shownPath: string | undefined;
  #lines: HTMLElement[] = [];

  constructor(root: HTMLElement) {
    this.#path = byTestId('code-path', root);
    this.#meta = required('.code-meta', root);
    this.#scroller = required('.code-scroll', root);
    this.#code = required('.code', root);
    this.clear();
  }

  /** True when `path` is already rendered, so only the highlight needs to move. */
  isShowing(path: string): boolean {
    return this.#shownPath === path;
  }

  /** Highlights lines start..end (1-based, inclusive) of the rendered file and scrolls to them. */
  highlight({ start, end }: LineRange, detail: string): void {
    this.#meta.textContent = detail;
    for (const line of this.#code.querySelectorAll('.line.hl')) line.classList.remove('hl');
    const first = Math.max(1, start);
    const last = Math.min(this.#lines.length, end);
    for (let n = first; n <= last; n++) this.#lines[n - 1]?.classList.add('hl');
    this.#lines[first - 1]?.scrollIntoView({ block: first === last ? 'center' : 'start' });
  }

  clear(): void {
    this.#shownPath = undefined;
    this.#lines = [];
    this.#path.replaceChildren();
    this.#path.removeAttribute('data-path');
    this.#meta.textContent = '';
    this.#code.replaceChildren(h('p', { class: 'empty' }, 'Select a search result to view its source.'));
  }

  /** Renders a file's text; the previous highlight is dropped. */
  load(path: string, text: string): void {
    this.#shownPath = path;
    this.#renderPath(path);
    const sourceLines = text.split('\n');
    if (sourceLines.length > 1 && sourceLines[sourceLines.length - 1] === '') sourceLines.pop();
    // One element and one text node per line; the line number comes from CSS (attr(data-line)).
    const fragment = document.createDocumentFragment();
    this.#lines = sourceLines.map((source, index) => {
      const line = document.createElement('div');
      line.className = 'line';
      line.dataset.line = String(index + 1);
      line.textContent = source.endsWith('\r') ? source.slice(0, -1) : source;
      fragment.append(line);
      return line;
    });
    this.#code.style.setProperty('--gutter-digits', String(String(sourceLines.length).length));
    this.#code.replaceChildren(fragment);
    this.#scroller.scrollTop = 0;
  }

  #renderPath(path: string): void {
    const segments = path.split('/');
    const crumbs: Node[] = [];
    segments.forEach((segment, index) => {
      if (index > 0) crumbs.push(h('span', { class: 'sep' }, '/'));
      crumbs.push(h('span', { class: index === segments.length - 1 ? 'crumb leaf' : 'crumb' }, segment));
    });
    this.#path.replaceChildren(...crumbs);
    this.#path.dataset.path = path;
  }
}
