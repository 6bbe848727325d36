// Renders an IndexSummary: totals, files by language, symbols by kind,
// stage timings, skipped files grouped by reason, and files with syntax errors.
import { STAGES, type FileError, type IndexSummary, type ScipReport, type Skipped } from '../../web/src/index';
import { formatMs, h, plural } from '../../web/src/ui/dom';

const SKIP_REASONS: Record<Skipped['reason'], string> = {
  vendored: 'Vendored or build directory',
  generated: 'Generated',
  binary: 'Binary',
  too_large: 'Too large',
  unsupported: 'Unsupported language',
  encrypted: 'Encrypted',
  unreadable: 'Unreadable',
  limit: 'Over an input limit',
  excluded: 'Excluded by a pattern',
};

export function renderSummary(root: HTMLElement, summary: IndexSummary): void {
  root.replaceChildren(
    h('header', { class: 'summary-head' },
      h('h2', { title: summary.archive }, summary.archive),
      h('p', { class: 'totals' },
        `${plural(summary.files, 'file')} · ${plural(summary.symbols, 'symbol')} · ${plural(summary.edges, 'edge')} · ${formatMs(summary.timings_ms.total)}`),
    ),
    countTable('summary-files', 'Files by language', 'language', summary.files, summary.languages),
    countTable('summary-symbols', 'Symbols by kind', 'kind', summary.symbols, summary.kinds),
    countTable('summary-edges', 'Edges by type', 'edge', summary.edges, summary.edge_types),
    resolutionLine(summary),
    ...(summary.scip ? [scipSection(summary.scip)] : []),
    timingsTable(summary),
    skippedSection(summary.skipped),
    errorsSection(summary.errors),
  );
  root.hidden = false;
}

function countTable(testId: string, title: string, key: string, total: number, counts: Record<string, number>): HTMLElement {
  const entries = Object.entries(counts).sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
  const max = Math.max(1, ...entries.map(([, count]) => count));
  return h('section', { class: 'block', 'data-testid': testId, 'data-count': total },
    h('h3', {}, title),
    entries.length === 0
      ? h('p', { class: 'muted' }, 'None')
      : h('ul', { class: 'counts' }, ...entries.map(([name, count]) =>
          h('li', { [`data-${key}`]: name, 'data-count': count },
            h('span', { class: 'name' }, name),
            h('span', { class: 'meter' }, meterFill(count / max)),
            h('span', { class: 'num' }, count.toLocaleString('en-US'))))),
  );
}

/** How calls resolved: the honest measure of the graph's precision. */
function resolutionLine({ resolution: r, external }: IndexSummary): HTMLElement {
  return h('p', { class: 'muted block', 'data-testid': 'summary-resolution' },
    `Calls: ${r.calls_resolved.toLocaleString('en-US')} resolved, ${r.calls_ambiguous.toLocaleString('en-US')} ambiguous (all candidates kept), `
    + `${r.calls_external.toLocaleString('en-US')} external, ${r.calls_unresolved.toLocaleString('en-US')} unresolved · `
    + `${plural(external, 'external symbol')}`);
}

/** What SCIP indexes gave: each index, the files covered, what changed, and how far Fathom's own calls agreed. */
function scipSection(report: ScipReport): HTMLElement {
  const n = (x: number): string => x.toLocaleString('en-US');
  const added = Object.values(report.added).reduce((sum, x) => sum + x, 0);
  const calls = report.agreement.calls;
  return h('section', { class: 'block', 'data-testid': 'summary-scip' },
    h('h3', {}, 'Precise edges (SCIP)'),
    h('ul', { class: 'file-list' }, ...report.sources.map((source) =>
      h('li', { 'data-name': source.name },
        h('span', { class: 'path' }, `${source.name}: ${source.tool} ${source.version}`),
        h('span', { class: 'detail' },
          `${n(source.matched)} of ${n(source.documents)} documents used`
          + (source.stale_count > 0 ? `, ${n(source.stale_count)} of another revision` : '')
          + (source.unmatched_count > 0 ? `, ${n(source.unmatched_count)} with no such file` : ''))))),
    h('p', { class: 'muted' },
      `${plural(report.covered.length, 'file')} covered · ${n(report.confirmed)} edges confirmed, ${n(added)} added, ${n(report.dropped)} contradicted and dropped`),
    calls.judged > 0
      ? h('p', { class: 'muted', 'data-testid': 'summary-scip-agreement' },
        `Fathom's own calls agreed with the index at ${n(calls.agreed)} of ${n(calls.judged)} call sites, and found ${n(calls.found)} of its ${n(calls.index_edges)} calls`)
      : null,
  );
}

function meterFill(ratio: number): HTMLElement {
  const fill = h('span', { class: 'meter-fill' });
  fill.style.width = `${(ratio * 100).toFixed(1)}%`;
  return fill;
}

function timingsTable({ timings_ms: t }: IndexSummary): HTMLElement {
  return h('section', { class: 'block', 'data-testid': 'summary-timings' },
    h('h3', {}, 'Stage timings'),
    h('dl', { class: 'timings' },
      ...STAGES.flatMap((stage) => [h('dt', {}, stage), h('dd', {}, formatMs(t[stage]))]),
      h('dt', { class: 'total' }, 'total'), h('dd', { class: 'total' }, formatMs(t.total))),
  );
}

function skippedSection(skipped: Skipped[]): HTMLElement {
  const groups = new Map<Skipped['reason'], Skipped[]>();
  for (const item of skipped) groups.set(item.reason, [...(groups.get(item.reason) ?? []), item]);
  return h('section', { class: 'block', 'data-testid': 'skipped', 'data-count': skipped.length },
    h('h3', {}, `Skipped files (${skipped.length.toLocaleString('en-US')})`),
    skipped.length === 0 ? h('p', { class: 'muted' }, 'None') : null,
    ...[...groups].map(([reason, items]) => lazyList(
      { 'data-reason': reason, 'data-count': items.length },
      `${SKIP_REASONS[reason] ?? reason} (${items.length.toLocaleString('en-US')})`,
      items,
      (item) => h('li', { 'data-path': item.path },
        h('span', { class: 'path' }, item.path),
        item.detail ? h('span', { class: 'detail' }, item.detail) : null),
    )),
  );
}

function errorsSection(errors: FileError[]): HTMLElement {
  return h('section', { class: 'block', 'data-testid': 'errors', 'data-count': errors.length },
    h('h3', {}, `Files with syntax errors (${errors.length.toLocaleString('en-US')})`),
    errors.length === 0
      ? h('p', { class: 'muted' }, 'None')
      : h('p', { class: 'muted' }, 'These files are still indexed.'),
    errors.length === 0 ? null : h('ul', { class: 'file-list' }, ...errors.map((error) =>
      h('li', { 'data-path': error.path },
        h('span', { class: 'path' }, typeof error.line === 'number' ? `${error.path}:${error.line}` : error.path),
        h('span', { class: 'detail' }, error.message)))),
  );
}

/** A <details> whose list items are only built when it is first opened (skip lists can be huge). */
function lazyList<T>(attrs: Record<string, string | number>, title: string, items: T[], render: (item: T) => HTMLElement): HTMLElement {
  const list = h('ul', { class: 'file-list' });
  const details = h('details', attrs, h('summary', {}, title), list);
  details.addEventListener('toggle', () => {
    if (!details.open || list.hasChildNodes()) return;
    const fragment = document.createDocumentFragment();
    for (const item of items) fragment.append(render(item));
    list.append(fragment);
  });
  return details;
}
