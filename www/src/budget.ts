// The memory budget. Before an archive is indexed, the engine surveys its
// listing (reading no file) and estimates the memory indexing needs. When
// that is over this tab's budget, the page says so before starting and
// offers to index a chosen subset of the archive's top-level folders.
import type { Plan } from '../../web/src/index';
import { h } from '../../web/src/ui/dom';

const MB = 1 << 20;

/**
 * The heap the indexing worker may use: half of wasm32's 4 GiB, less on a
 * device that reports little memory. `?budget=MB` sets it.
 */
export function memoryBudget(params: URLSearchParams): number {
  const asked = Number(params.get('budget'));
  if (asked > 0) return asked * MB;
  const device = (navigator as { deviceMemory?: number }).deviceMemory;
  return Math.min(2048 * MB, device ? (device * 1024 * MB) / 4 : 2048 * MB);
}

export function formatMb(bytes: number): string {
  if (bytes >= 1024 * MB) return `${(bytes / 1024 / MB).toFixed(1)} GB`;
  if (bytes >= MB) return `${Math.round(bytes / MB)} MB`;
  return `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

/** Thrown when the user cancels instead of choosing: nothing was changed. */
export class BudgetDeclined extends Error {
  constructor() {
    super('indexing was cancelled at the memory budget');
  }
}

export class BudgetView {
  readonly #root: HTMLElement;
  /** Declines the choice on screen, if one is. */
  #decline: (() => void) | undefined;

  constructor(root: HTMLElement) {
    this.#root = root;
  }

  /** Declines the choice on screen (as its Cancel does); false when none is. */
  decline(): boolean {
    if (!this.#decline) return false;
    this.#decline();
    return true;
  }

  /**
   * Resolves at once with no exclusions when the whole archive fits;
   * otherwise shows the folders and resolves with the exclude patterns of
   * the ones left out, or rejects with BudgetDeclined.
   */
  choose(name: string, plan: Plan, budget: number): Promise<string[]> {
    if (plan.estimated_heap_bytes <= budget) return Promise.resolve([]);
    const folders = plan.survey.folders.map((folder, i) => ({ ...folder, heap: plan.folder_heap_bytes[i] ?? 0 }));
    const choosable = folders.filter((f) => f.path !== '');
    const fixed = plan.base_heap_bytes + folders.filter((f) => f.path === '').reduce((n, f) => n + f.heap, 0);
    // Largest first, each folder that still fits.
    const chosen = new Set<string>();
    let used = fixed;
    for (const folder of choosable) {
      if (used + folder.heap <= budget) {
        chosen.add(folder.path);
        used += folder.heap;
      }
    }
    return new Promise((resolve, reject) => {
      const total = h('p', { class: 'budget-total', 'data-testid': 'budget-total', 'aria-live': 'polite' });
      const start = h('button', { type: 'button', class: 'button primary', 'data-testid': 'budget-index' }, 'Index the chosen folders');
      const cancel = h('button', { type: 'button', class: 'button', 'data-testid': 'budget-cancel' }, 'Cancel');
      const update = (): void => {
        const need = fixed + choosable.filter((f) => chosen.has(f.path)).reduce((n, f) => n + f.heap, 0);
        total.textContent = `Chosen: about ${formatMb(need)} of this tab's ${formatMb(budget)}.`;
        total.dataset.over = String(need > budget);
        start.disabled = need > budget || chosen.size === 0;
      };
      const items = choosable.map((folder) => {
        const box = h('input', { type: 'checkbox', checked: chosen.has(folder.path), 'data-testid': 'budget-folder', 'data-path': folder.path });
        box.addEventListener('change', () => {
          if (box.checked) chosen.add(folder.path);
          else chosen.delete(folder.path);
          update();
        });
        const files = `${folder.files} ${folder.files === 1 ? 'file' : 'files'}`;
        return h('li', {}, h('label', {}, box, h('code', {}, `${folder.path}/`), ` ${files}, ${formatMb(folder.bytes)} of source, about ${formatMb(folder.heap)} to index`));
      });
      const close = (): void => {
        this.#root.replaceChildren();
        this.#root.hidden = true;
        this.#decline = undefined;
      };
      start.addEventListener('click', () => {
        close();
        resolve(choosable.filter((f) => !chosen.has(f.path)).map((f) => `${f.path}/**`));
      });
      this.#decline = () => {
        close();
        reject(new BudgetDeclined());
      };
      cancel.addEventListener('click', this.#decline);
      this.#root.replaceChildren(
        h('h3', { class: 'panel-title' }, 'Too large for this tab'),
        h(
          'p',
          { 'data-testid': 'budget-message' },
          `${name} holds ${plan.survey.files} files with ${formatMb(plan.survey.bytes)} of source. Indexing all of it needs about ${formatMb(plan.estimated_heap_bytes)} of memory, more than this tab's budget of ${formatMb(budget)}. Nothing has been indexed yet: choose the folders to index.`,
        ),
        h('ul', { class: 'budget-folders' }, ...items),
        h('p', { class: 'hint', hidden: !folders.some((f) => f.path === '') }, 'Files at the top level are always indexed.'),
        total,
        h('div', { class: 'budget-actions' }, start, cancel),
      );
      this.#root.hidden = false;
      update();
      start.focus();
    });
  }
}
