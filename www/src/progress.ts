// One progress bar per indexing stage, with "done / total" counts and, once a
// stage has run a moment, an estimate of its time left.
import { STAGES, type Progress, type Stage } from '../../web/src/index';
import { h } from '../../web/src/ui/dom';

type StageStatus = 'pending' | 'active' | 'done' | 'failed';

interface StageRow {
  row: HTMLElement;
  bar: HTMLElement;
  fill: HTMLElement;
  count: HTMLElement;
}

const LABELS: Record<Stage, string> = {
  read: 'Read', parse: 'Parse', graph: 'Graph', resolve: 'Resolve', index: 'Index', embed: 'Embed',
};

/** A stage's estimate appears once it has run this long (earlier ones are noise). */
const ETA_AFTER_MS = 400;

export class ProgressView {
  readonly #rows = new Map<Stage, StageRow>();
  /** When each stage reported its first progress. */
  readonly #started = new Map<Stage, number>();

  constructor(root: HTMLElement) {
    for (const stage of STAGES) {
      const fill = h('div', { class: 'fill' });
      const bar = h('div', { class: 'bar', role: 'progressbar', 'aria-label': `${LABELS[stage]} progress` }, fill);
      const count = h('span', { class: 'count' });
      const row = h('div', { class: 'stage', 'data-testid': `progress-${stage}` },
        h('span', { class: 'label' }, LABELS[stage]), bar, count);
      root.append(row);
      this.#rows.set(stage, { row, bar, fill, count });
    }
    this.reset();
  }

  reset(): void {
    this.#started.clear();
    for (const stage of STAGES) this.#set(stage, 0, 0, 'pending');
  }

  update({ stage, done, total }: Progress): void {
    const now = performance.now();
    const started = this.#started.get(stage) ?? now;
    this.#started.set(stage, started);
    const elapsed = now - started;
    const eta = done > 0 && done < total && elapsed > ETA_AFTER_MS ? ((total - done) * elapsed) / done / 1000 : null;
    this.#set(stage, done, total, done >= total ? 'done' : 'active', eta);
  }

  /** Marks stages that were still running as failed. */
  fail(): void {
    for (const { row } of this.#rows.values()) {
      if (row.dataset.status === 'active') row.dataset.status = 'failed';
    }
  }

  #set(stage: Stage, done: number, total: number, status: StageStatus, eta: number | null = null): void {
    const parts = this.#rows.get(stage);
    if (!parts) return;
    const { row, bar, fill, count } = parts;
    row.dataset.status = status;
    row.dataset.done = String(done);
    row.dataset.total = String(total);
    bar.setAttribute('aria-valuemin', '0');
    bar.setAttribute('aria-valuemax', String(total));
    bar.setAttribute('aria-valuenow', String(done));
    const ratio = total > 0 ? Math.min(1, done / total) : status === 'done' ? 1 : 0;
    fill.style.width = `${(ratio * 100).toFixed(1)}%`;
    count.textContent = `${done.toLocaleString('en-US')} / ${total.toLocaleString('en-US')}`;
    count.title = eta === null ? '' : `about ${Math.ceil(eta)} s left`;
    row.dataset.eta = eta === null ? '' : String(Math.ceil(eta));
    const left = row.querySelector('.eta') ?? row.appendChild(h('span', { class: 'eta' }));
    left.textContent = eta === null ? '' : `${Math.ceil(eta)} s left`;
  }
}
