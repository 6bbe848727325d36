// Page-level actions and reads on the Fathom app, shared by the e2e tests.
import type { Locator, Page } from 'playwright-core';

export type AppState = 'idle' | 'indexing' | 'ready' | 'error';

export interface Citation {
  file: string;
  start: number;
  end: number;
}

export async function uploadZip(page: Page, name: string, bytes: Uint8Array): Promise<void> {
  await page.getByTestId('archive-input').setInputFiles({ name, mimeType: 'application/zip', buffer: Buffer.from(bytes) });
}

/** Drops a zip onto the drop zone, as a user dragging it from their file manager would. */
export async function dropZip(page: Page, name: string, bytes: Uint8Array): Promise<void> {
  await dropFiles(page, [{ name, bytes, type: 'application/zip' }]);
}

/** Drops several files at once onto the drop zone (an archive and a SCIP index beside it). */
export async function dropFiles(page: Page, files: { name: string; bytes: Uint8Array; type?: string }[]): Promise<void> {
  const dataTransfer = await page.evaluateHandle((given) => {
    const transfer = new DataTransfer();
    for (const { name, base64, type } of given) {
      const data = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      transfer.items.add(new File([data], name, { type }));
    }
    return transfer;
  }, files.map((f) => ({ name: f.name, base64: Buffer.from(f.bytes).toString('base64'), type: f.type ?? 'application/octet-stream' })));
  const zone = page.getByTestId('drop-zone');
  await zone.dispatchEvent('dragenter', { dataTransfer });
  await zone.dispatchEvent('drop', { dataTransfer });
}

/** Waits until indexing has started and then settled into `state`. */
export async function waitForState(page: Page, state: AppState, timeout = 120_000): Promise<void> {
  await page.waitForFunction(
    (expected) => document.body.dataset.state === expected,
    state,
    { timeout, polling: 50 },
  );
}

/** Types a query and waits for the result list rendered for exactly that query. */
export async function searchFor(page: Page, query: string): Promise<void> {
  await page.getByTestId('search-input').fill(query);
  await page.locator(`[data-testid="search-results"][data-query="${query}"]`).waitFor({ state: 'attached' });
}

export function resultCount(page: Page): Promise<number> {
  return page.getByTestId('search-result').count();
}

/** Parses the `file:start-end` citation shown on the index-th result. */
export async function citationOf(page: Page, index: number): Promise<Citation> {
  const text = (await page.getByTestId('search-result').nth(index).locator('.cite').textContent()) ?? '';
  const match = /^(.+):(\d+)-(\d+)$/.exec(text.trim());
  if (!match) throw new Error(`unexpected citation ${JSON.stringify(text)}`);
  return { file: match[1] ?? '', start: Number(match[2]), end: Number(match[3]) };
}

/** Waits for the code view to show `citation.file` with its lines highlighted. */
export async function waitForCode(page: Page, citation: Citation): Promise<void> {
  await page.waitForFunction(
    ({ file, start }) =>
      document.querySelector<HTMLElement>('[data-testid="code-path"]')?.dataset.path === file &&
      document.querySelector<HTMLElement>('[data-testid="code-view"] .line.hl')?.dataset.line === String(start),
    citation,
  );
}

/** Line numbers and text of the highlighted lines in the code view. */
export function highlighted(page: Page): Promise<{ lines: number[]; text: string }> {
  return page.evaluate(() => {
    const lines = [...document.querySelectorAll<HTMLElement>('[data-testid="code-view"] .line.hl')];
    return { lines: lines.map((line) => Number(line.dataset.line)), text: lines.map((line) => line.textContent).join('\n') };
  });
}

/**
 * Opens the sidebar (drop zone, library, progress, summary), which an open
 * index folds away behind the top bar's toggle; a no-op where it is open.
 */
export async function openSidebar(page: Page): Promise<void> {
  if ((await page.evaluate(() => document.body.dataset.sidebar)) === 'closed') await page.getByTestId('sidebar-toggle').click();
  await page.getByTestId('library').waitFor();
}

/** Reads a summary table: data-<key> → data-count of each row under the given test id. */
export function summaryCounts(page: Page, testId: string, key: 'language' | 'kind' | 'edge'): Promise<Record<string, number>> {
  return page.evaluate(
    ({ testId, key }) =>
      Object.fromEntries(
        [...document.querySelectorAll<HTMLElement>(`[data-testid="${testId}"] [data-${key}]`)].map((row) => [
          row.getAttribute(`data-${key}`) ?? '',
          Number(row.dataset.count),
        ]),
      ),
    { testId, key },
  );
}

export async function countOf(page: Page, testId: string): Promise<number> {
  return Number(await page.getByTestId(testId).getAttribute('data-count'));
}

export function range(start: number, end: number): number[] {
  return Array.from({ length: end - start + 1 }, (_, i) => start + i);
}

/** Clicks the middle of the last `word` on a code line, wherever highlighting split the line into spans. */
export async function clickWord(page: Page, line: Locator, word: string): Promise<void> {
  await line.scrollIntoViewIfNeeded();
  const at = await line.evaluate((el, w) => {
    const offset = (el.textContent ?? '').lastIndexOf(w) + Math.floor(w.length / 2);
    if (offset < 0) return null;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    let seen = 0;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const length = node.textContent?.length ?? 0;
      if (seen + length > offset) {
        const range = document.createRange();
        range.setStart(node, offset - seen);
        range.setEnd(node, offset - seen + 1);
        const box = range.getBoundingClientRect();
        return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
      }
      seen += length;
    }
    return null;
  }, word);
  if (!at) throw new Error(`\`${word}\` is not on the line`);
  await page.mouse.click(at.x, at.y);
}

/** The map's architecture overview as drawn: how much of its panel it fills one way, its scale, and its community labels. */
export interface OverviewDrawn {
  fill: number;
  scale: number;
  labels: { name: string; clipped: boolean }[];
}

/**
 * Reads the map's overview once it is drawn for the panel's current size
 * (its `data-overview` within the 40 px the map lets pass without a
 * redraw), in one evaluation, so a drawing being replaced is never read.
 */
export async function overviewDrawn(page: Page, timeout = 10_000): Promise<OverviewDrawn> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const drawn = await page.getByTestId('graph-view').evaluate((root): OverviewDrawn | undefined => {
      const panel = root.querySelector('[data-testid="map-overview"]') as HTMLElement;
      const svg = panel.querySelector('[data-testid="overview-graph"]') as SVGSVGElement | null;
      const [w, h] = [panel.clientWidth - 24, panel.clientHeight - 56];
      const [dw, dh] = ((root as HTMLElement).dataset.overview ?? '').split('x').map(Number);
      if (!svg || dw === undefined || dh === undefined || !(Math.abs(dw - w) <= 40 && Math.abs(dh - h) <= 40)) return undefined;
      const labels = [...svg.querySelectorAll<SVGGElement>('.ov-community')].map((g) => {
        const [box, text] = [g.querySelector('rect')!.getBBox(), g.querySelector('.ov-name') as SVGTextContentElement];
        return { name: g.dataset.name ?? '', clipped: text.getComputedTextLength() > box.width };
      });
      return { fill: Math.max(svg.clientWidth / w, svg.clientHeight / h), scale: svg.clientWidth / svg.viewBox.baseVal.width, labels };
    });
    if (drawn) return drawn;
    if (Date.now() > deadline) throw new Error(`the map's overview was not drawn for its panel within ${timeout} ms`);
    await page.waitForTimeout(100);
  }
}
