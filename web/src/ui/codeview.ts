// Read-only source view: line numbers, a highlighted line range, scrolled into view.
import type { Highlights } from '../index';
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

  /**
   * `onPosition(path, line, column)` hears a click on the code: the line is
   * 1-based, the column 0-based in UTF-16 units (what the engine takes).
   */
  constructor(root: HTMLElement, onPosition?: (path: string, line: number, column: number) => void) {
    this.#path = byTestId('code-path', root);
    this.#meta = required('.code-meta', root);
    this.#scroller = required('.code-scroll', root);
    // Focusable, so the keyboard can scroll the code.
    this.#scroller.tabIndex = 0;
    this.#scroller.setAttribute('aria-label', 'Source code');
    this.#code = required('.code', root);
    this.#code.addEventListener('click', (event) => {
      if (!onPosition || !this.#shownPath || (window.getSelection()?.toString() ?? '') !== '') return;
      const at = positionAt(event);
      if (at) onPosition(this.#shownPath, at.line, at.column);
    });
    this.clear();
  }

  /** Colours the shown file with the engine's highlight spans (same path only). */
  applyHighlights(path: string, highlights: Highlights): void {
    if (path !== this.#shownPath) return;
    const byLine = new Map<number, [number, number, number][]>();
    for (const [line, start, end, cls] of highlights.spans) {
      const list = byLine.get(line) ?? [];
      list.push([start, end, cls]);
      byLine.set(line, list);
    }
    for (const [line, spans] of byLine) {
      const element = this.#lines[line - 1];
      if (!element) continue;
      const text = element.textContent ?? '';
      const parts: (string | HTMLElement)[] = [];
      let column = 0;
      for (const [start, end, cls] of spans) {
        if (start < column || end > text.length) continue;
        parts.push(text.slice(column, start), h('span', { class: `tok-${highlights.classes[cls] ?? 'plain'}` }, text.slice(start, end)));
        column = end;
      }
      parts.push(text.slice(column));
      element.replaceChildren(...parts.filter((p) => p !== ''));
    }
    this.#code.dataset.highlighted = String(highlights.spans.length);
  }

  /** True when `path` is already rendered, so only the highlight needs to move. */
  isShowing(path: string): boolean {
    return this.#shownPath === path;
  }

  /** Highlights lines start..end (1-based, inclusive) of the rendered file and scrolls to them. */
  highlight({ start, end }: LineRange, detail: string): void {
    this.#meta.textContent = detail;
    this.#meta.title = detail;
    for (const line of this.#code.querySelectorAll<HTMLElement>('.line.hl')) {
      line.classList.remove('hl');
      delete line.dataset.testid;
    }
    const first = Math.max(1, start);
    const last = Math.min(this.#lines.length, end);
    for (let n = first; n <= last; n++) {
      const line = this.#lines[n - 1];
      line?.classList.add('hl');
      if (line) line.dataset.testid = 'code-line-highlighted';
    }
    // Scrolls the code alone: scrollIntoView would also scroll every ancestor,
    // the page that embeds <fathom-explorer> included.
    const target = this.#lines[first - 1];
    if (target) {
      const scroller = this.#scroller;
      const top = target.getBoundingClientRect().top - scroller.getBoundingClientRect().top + scroller.scrollTop;
      scroller.scrollTop = first === last ? top - scroller.clientHeight / 2 : top - 8;
    }
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

  get shownPath(): string | undefined {
    return this.#shownPath;
  }

  #renderPath(path: string): void {
    // The folders give way (cut at their end); the file name stays whole.
    const segments = path.split('/');
    const leaf = segments.pop() ?? path;
    const folders: Node[] = [];
    for (const segment of segments) folders.push(h('span', { class: 'crumb' }, segment), h('span', { class: 'sep' }, '/'));
    this.#path.replaceChildren(folders.length > 0 ? h('span', { class: 'path-head' }, ...folders) : '', h('span', { class: 'crumb leaf' }, leaf));
    this.#path.dataset.path = path;
    this.#path.title = path;
  }
}

/** The 1-based line and 0-based UTF-16 column under a click, from the caret position. */
function positionAt(event: MouseEvent): { line: number; column: number } | null {
  const range = caretAt(event);
  if (!range) return null;
  const line = (range.startContainer.parentElement ?? (range.startContainer as Element)).closest?.<HTMLElement>('.line');
  if (!line?.dataset.line) return null;
  // The caret's offset within the line: the text before its node, plus its offset.
  let column = 0;
  const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node === range.startContainer) return { line: Number(line.dataset.line), column: column + range.startOffset };
    column += node.textContent?.length ?? 0;
  }
  return { line: Number(line.dataset.line), column };
}

/** The caret under a click, also inside a shadow root (the <fathom-explorer> component). */
function caretAt(event: MouseEvent): { startContainer: Node; startOffset: number } | null {
  const root = (event.target as Node).getRootNode();
  if (root instanceof ShadowRoot && 'caretPositionFromPoint' in document) {
    const position = document.caretPositionFromPoint(event.clientX, event.clientY, { shadowRoots: [root] });
    return position ? { startContainer: position.offsetNode, startOffset: position.offset } : null;
  }
  return document.caretRangeFromPoint?.(event.clientX, event.clientY) ?? null;
}
