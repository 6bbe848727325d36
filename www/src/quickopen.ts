// Ctrl/Cmd+P: open a file by typing part of its path, as in VS Code. The list
// is the engine's (`files()`); matching is a subsequence of the path, closer
// and later-in-the-path matches first.
import type { FileInfo } from '../../web/src/index';
import { h, plural } from '../../web/src/ui/dom';

const SHOWN = 50;

export class QuickOpen {
  readonly #dialog: HTMLDialogElement;
  readonly #input: HTMLInputElement;
  readonly #list: HTMLElement;
  readonly #files: () => Promise<FileInfo[]>;
  readonly #onOpen: (path: string) => void;
  #all: FileInfo[] = [];
  #shown: FileInfo[] = [];
  #active = 0;

  constructor(files: () => Promise<FileInfo[]>, onOpen: (path: string) => void) {
    this.#files = files;
    this.#onOpen = onOpen;
    this.#input = h('input', { type: 'text', class: 'quick-input', placeholder: 'Go to file…', 'aria-label': 'File name', spellcheck: 'false', 'data-testid': 'quick-open-input' });
    this.#list = h('ul', { class: 'quick-list', role: 'listbox', 'data-testid': 'quick-open-list' });
    this.#dialog = h('dialog', { class: 'quick-open', 'data-testid': 'quick-open' }, this.#input, this.#list);
    document.body.append(this.#dialog);
    this.#input.addEventListener('input', () => this.#render());
    this.#input.addEventListener('keydown', (event) => this.#onKey(event));
    this.#list.addEventListener('click', (event) => {
      const item = (event.target as Element).closest<HTMLElement>('[data-path]');
      if (item?.dataset.path) this.#choose(item.dataset.path);
    });
    this.#dialog.addEventListener('click', (event) => {
      if (event.target === this.#dialog) this.#dialog.close();
    });
  }

  /** Forgets the file list: a new repository was indexed. */
  reset(): void {
    this.#all = [];
  }

  async open(): Promise<void> {
    if (this.#all.length === 0) this.#all = await this.#files();
    this.#input.value = '';
    this.#render();
    if (!this.#dialog.open) this.#dialog.showModal();
    this.#input.focus();
  }

  #onKey(event: KeyboardEvent): void {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      this.#active = Math.max(0, Math.min(this.#shown.length - 1, this.#active + step));
      this.#highlight();
    } else if (event.key === 'Enter') {
      event.preventDefault();
      const file = this.#shown[this.#active];
      if (file) this.#choose(file.path);
    }
  }

  #choose(path: string): void {
    this.#dialog.close();
    this.#onOpen(path);
  }

  #render(): void {
    const query = this.#input.value.trim();
    const scored = this.#all
      .map((file) => ({ file, score: query ? score(file.path, query) : 0 }))
      .filter((s) => s.score !== null) as { file: FileInfo; score: number }[];
    scored.sort((a, b) => b.score - a.score || a.file.path.localeCompare(b.file.path));
    this.#shown = scored.slice(0, SHOWN).map((s) => s.file);
    this.#active = 0;
    this.#list.replaceChildren(
      ...this.#shown.map((file) => {
        const slash = file.path.lastIndexOf('/');
        return h('li', { role: 'option', 'data-path': file.path },
          h('span', { class: 'quick-name' }, file.path.slice(slash + 1)),
          h('span', { class: 'quick-dir' }, slash > 0 ? file.path.slice(0, slash) : ''),
          h('span', { class: 'quick-meta' }, `${file.language} · ${plural(file.lines, 'line')}`));
      }),
    );
    this.#list.dataset.count = String(scored.length);
    this.#highlight();
  }

  #highlight(): void {
    [...this.#list.children].forEach((item, i) => item.setAttribute('aria-selected', String(i === this.#active)));
    this.#list.children[this.#active]?.scrollIntoView({ block: 'nearest' });
  }
}

/**
 * Scores `path` for `query` as a case-insensitive subsequence, or null when it
 * is not one: consecutive characters, matches in the file name and at word
 * starts score higher.
 */
export function score(path: string, query: string): number | null {
  const p = path.toLowerCase();
  const q = query.toLowerCase().replace(/\s+/g, '');
  const nameStart = p.lastIndexOf('/') + 1;
  let at = 0;
  let total = 0;
  let run = 0;
  for (const c of q) {
    const found = p.indexOf(c, at);
    if (found < 0) return null;
    run = found === at ? run + 1 : 0;
    const boundary = found === 0 || '/_-. '.includes(p[found - 1] ?? '');
    total += 1 + run * 2 + (boundary ? 3 : 0) + (found >= nameStart ? 2 : 0);
    at = found + 1;
  }
  return total - p.length * 0.01;
}
