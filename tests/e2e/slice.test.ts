// The vertical slice: upload an archive, read the summary, search, open code.
import type { Page } from 'playwright-core';
import { describe, expect, inject, test } from 'vitest';
import {
  citationOf,
  countOf,
  dropZip,
  highlighted,
  openSidebar,
  range,
  resultCount,
  searchFor,
  summaryCounts,
  uploadZip,
  waitForCode,
  waitForState,
} from './app';
import { screenshot, sharedBrowser, withApp as withAppIn, type AppPage } from './browser';
import { corruptZip, zipFiles, zipFixture } from './fixtures';

const baseUrl = inject('baseUrl');
const browser = sharedBrowser();

function withApp(run: (app: AppPage) => Promise<void>): Promise<void> {
  return withAppIn(browser(), baseUrl, run);
}

/** 3,000 Python files of 12 classes each: indexing it takes a while. */
function largeArchive(): Uint8Array {
  const files: Record<string, string> = {};
  for (let i = 0; i < 3000; i++) {
    files[`big/pkg${i % 30}/mod${i}.py`] = Array.from({ length: 12 }, (_, j) =>
      `class Model${i}_${j}:\n    def method_${j}(self, x):\n        return x * ${j}\n`).join('\n');
  }
  return zipFiles(files);
}

/** Searches `name`, opens the first result and checks that exactly its lines are highlighted. */
async function openFirstResult(page: Page, name: string, file: string, definition: string): Promise<void> {
  await searchFor(page, name);
  expect(await resultCount(page)).toBeGreaterThan(0);
  const citation = await citationOf(page, 0);
  expect(citation.file).toBe(file);
  expect(citation.end).toBeGreaterThanOrEqual(citation.start);

  await page.getByTestId('search-result').first().click();
  await waitForCode(page, citation);
  await expect.poll(() => page.getByTestId('code-path').textContent()).toBe(file);
  const { lines, text } = await highlighted(page);
  expect(lines).toEqual(range(citation.start, citation.end));
  expect(text).toContain(definition);
}

describe('webapp fixture', () => {
  test('indexes a dropped zip, summarises it, searches and opens code', async () => {
    await withApp(async ({ page, requests }) => {
      await dropZip(page, 'webapp.zip', zipFixture('webapp'));
      await waitForState(page, 'ready');
      await screenshot(page, 'webapp-ready');

      expect(await countOf(page, 'summary-files')).toBe(6);
      expect(await summaryCounts(page, 'summary-files', 'language')).toEqual({ python: 3, javascript: 1, typescript: 2 });
      expect(await countOf(page, 'summary-symbols')).toBeGreaterThan(0);
      const kinds = await summaryCounts(page, 'summary-symbols', 'kind');
      expect(kinds.function).toBeGreaterThan(0);
      expect(kinds.class).toBeGreaterThan(0);
      expect(kinds.method).toBeGreaterThan(0);

      // The graph is resolved across files: calls and imports are edges.
      const edges = await summaryCounts(page, 'summary-edges', 'edge');
      expect(edges.CONTAINS).toBeGreaterThan(0);
      expect(edges.CALLS).toBeGreaterThan(0);
      expect(edges.IMPORTS).toBeGreaterThan(0);

      for (const stage of ['read', 'parse', 'graph', 'resolve', 'index']) {
        const bar = page.getByTestId(`progress-${stage}`);
        expect(await bar.getAttribute('data-done')).toBe(await bar.getAttribute('data-total'));
        await expect.poll(() => bar.locator('.count').textContent()).toMatch(/^\d[\d,]* \/ \d[\d,]*$/);
      }

      // A vendored directory is skipped once, as a whole; other files are listed by reason.
      await openSidebar(page);
      const skipped = page.getByTestId('skipped');
      for (const group of await skipped.locator('details summary').all()) await group.click();
      const skippedPaths = () => skipped.locator('li[data-path]').evaluateAll((items) =>
        items.map((item) => item.getAttribute('data-path')));
      await expect.poll(skippedPaths).toEqual(expect.arrayContaining(['node_modules/', 'assets/logo.png']));

      // A file with syntax errors is listed, and still indexed.
      const errorPaths = await page.getByTestId('errors').locator('li[data-path]').evaluateAll((items) =>
        items.map((item) => item.getAttribute('data-path')));
      expect(errorPaths).toContain('server/broken.py');
      await screenshot(page, 'webapp-summary-expanded');

      await openFirstResult(page, 'compute_total', 'server/billing.py', 'def compute_total');
      await screenshot(page, 'webapp-python-hit');
      await openFirstResult(page, 'formatPrice', 'web/static/app.js', 'function formatPrice');
      await openFirstResult(page, 'createClient', 'web/src/api.ts', 'function createClient');

      expect(requests.some((url) => url.endsWith('.wasm'))).toBe(true);
    });
  });

  test('once indexed, the sidebar folds into the top bar and results and code take the width', async () => {
    await withApp(async ({ page }) => {
      const sidebar = page.locator('#sidebar');
      const toggle = page.getByTestId('sidebar-toggle');
      await uploadZip(page, 'webapp.zip', zipFixture('webapp'));
      await waitForState(page, 'ready');
      expect(await sidebar.isVisible()).toBe(false);
      expect(await toggle.textContent()).toMatch(/^6 files · \d+ symbols$/);
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      await openFirstResult(page, 'compute_total', 'server/billing.py', 'def compute_total');
      const widths = (): Promise<{ results: number; main: number; left: number }> => page.evaluate(() => {
        const box = (selector: string) => document.querySelector(selector)!.getBoundingClientRect();
        return { results: box('.results-pane').width, main: box('.main-pane').width, left: box('.results-pane').left };
      });
      for (const width of [1280, 1920]) {
        await page.setViewportSize({ width, height: 900 });
        const seen = await widths();
        // Two fifths for the results, three for the code, from the left edge.
        expect(seen.left).toBe(0);
        expect(seen.results).toBeGreaterThanOrEqual(width * 0.39);
        expect(seen.main).toBeGreaterThanOrEqual(width * 0.59);
        // The result's name and citation are shown whole.
        const clipped = await page.getByTestId('search-result').first().locator('.cite').evaluate((e) => e.scrollWidth > e.clientWidth);
        expect(clipped).toBe(false);
        await screenshot(page, `webapp-folded-${width}`);
      }
      // The toggle opens the sidebar on demand, with the summary, and folds it again.
      await toggle.click();
      expect(await sidebar.isVisible()).toBe(true);
      expect(await toggle.getAttribute('aria-expanded')).toBe('true');
      expect(await page.getByTestId('summary-files').isVisible()).toBe(true);
      await screenshot(page, 'webapp-unfolded-1920');
      await toggle.click();
      expect(await sidebar.isVisible()).toBe(false);
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await toggle.isVisible()).toBe(true);
      await screenshot(page, 'webapp-folded-390');
    });
  });

  test('the symbol panel lists callers with their edge, and a click opens the caller', async () => {
    await withApp(async ({ page }) => {
      await uploadZip(page, 'webapp.zip', zipFixture('webapp'));
      await waitForState(page, 'ready');
      await openFirstResult(page, 'compute_total', 'server/billing.py', 'def compute_total');
      const panel = page.getByTestId('symbol-panel');
      await expect.poll(() => panel.isVisible()).toBe(true);
      const caller = panel.getByTestId('callers').locator('li[data-symbol="billing.Invoice.total"]');
      await expect.poll(() => caller.count()).toBe(1);
      expect(await caller.getAttribute('data-reason')).toBe('same-file');
      expect(await caller.locator('.edge-meta').textContent()).toMatch(/^0\.\d\d same-file · L\d+$/);
      await screenshot(page, 'symbol-panel');

      await caller.locator('button').click();
      await expect.poll(async () => (await highlighted(page)).text).toContain('def total(self)');
      await expect.poll(() => panel.getByTestId('callees').locator('li[data-symbol="billing.compute_total"]').count()).toBe(1);
    });
  });

  test('the query console runs Cypher in the worker and shows refusals in place', async () => {
    await withApp(async ({ page }) => {
      await uploadZip(page, 'webapp.zip', zipFixture('webapp'));
      await waitForState(page, 'ready');
      await page.getByTestId('query-console').locator('summary').click();
      const input = page.getByTestId('query-input');
      await input.fill("MATCH (c:CLASS {name: 'Invoice'})-[:HAS_METHOD]->(m:METHOD) RETURN m.name ORDER BY m.name");
      await input.press('Control+Enter');
      const cells = page.getByTestId('query-result').locator('tbody td');
      await expect.poll(() => cells.allTextContents()).toEqual(['__init__', 'describe', 'total']);
      expect(await page.getByTestId('query-count').textContent()).toBe('3 rows');
      await screenshot(page, 'query-console');

      await input.fill('MATCH (n)-[:CALLS*]->(m) RETURN m');
      await page.getByTestId('query-run').click();
      const error = page.getByTestId('query-error');
      await expect.poll(() => error.isVisible()).toBe(true);
      expect(await error.textContent()).toMatch(/upper bound of at most 4.*line 1, column 18/);

      await input.fill('MATCH (n) DETACH DELETE n');
      await page.getByTestId('query-run').click();
      await expect.poll(() => error.textContent()).toMatch(/DETACH DELETE is not allowed/);
    });
  });

  test('keyboard: ArrowDown + Enter opens the selected result', async () => {
    await withApp(async ({ page }) => {
      await uploadZip(page, 'webapp.zip', zipFixture('webapp'));
      await waitForState(page, 'ready');
      await searchFor(page, 'Invoice');
      const citation = await citationOf(page, 0);
      const input = page.getByTestId('search-input');
      await input.press('ArrowDown');
      await input.press('Enter');
      await waitForCode(page, citation);
      const { lines, text } = await highlighted(page);
      expect(lines).toEqual(range(citation.start, citation.end));
      expect(text).toContain('class Invoice');
    });
  });

  test('a corrupt zip shows the cause, and the next archive still works', async () => {
    await withApp(async ({ page }) => {
      await uploadZip(page, 'damaged-archive.zip', corruptZip(zipFixture('webapp')));
      await waitForState(page, 'error');
      const banner = page.getByRole('alert');
      await expect.poll(() => banner.isVisible()).toBe(true);
      expect(await page.getByTestId('error-banner').isVisible()).toBe(true);
      const message = (await banner.textContent()) ?? '';
      expect(message).toContain('damaged-archive.zip');
      expect(message).toMatch(/zip/i);
      await screenshot(page, 'corrupt-zip-error');

      await uploadZip(page, 'webapp.zip', zipFixture('webapp'));
      await waitForState(page, 'ready');
      expect(await page.getByTestId('error-banner').isVisible()).toBe(false);
      await openFirstResult(page, 'compute_total', 'server/billing.py', 'def compute_total');
    });
  });

  test('the page answers while a large archive is indexed in the worker', async () => {
    // Large enough that indexing takes a while: were it on the main thread,
    // no round trip could be answered while the state is 'indexing'.
    await withApp(async ({ page }) => {
      await uploadZip(page, 'large.zip', largeArchive());
      const answeredWhileIndexing: number[] = [];
      for (;;) {
        const started = Date.now();
        const state = await page.evaluate(() => document.body.dataset.state);
        if (state !== 'indexing') break;
        answeredWhileIndexing.push(Date.now() - started);
      }
      await waitForState(page, 'ready');
      expect(await countOf(page, 'summary-files')).toBe(3000);
      expect(answeredWhileIndexing.length).toBeGreaterThan(3);
      const progressSeen = await page.getByTestId('progress-parse').getAttribute('data-done');
      expect(progressSeen).toBe('3000');
    });
  });

  test('an archive dropped while another is indexing replaces it', async () => {
    await withApp(async ({ page }) => {
      await uploadZip(page, 'large.zip', largeArchive());
      await page.waitForFunction(() => document.body.dataset.state === 'indexing');
      // The reader changes their mind: the new archive is indexed, not ignored.
      await dropZip(page, 'webapp.zip', zipFixture('webapp'));
      await page.waitForFunction(() => document.querySelector('#status-line')?.textContent?.includes('Indexed webapp.zip'), undefined, { timeout: 60_000 });
      expect(await page.evaluate(() => document.body.dataset.state)).toBe('ready');
      expect(await countOf(page, 'summary-files')).toBe(6);
      await searchFor(page, 'Model12_3');
      expect(await resultCount(page)).toBe(0);
    });
  });

  test('a 20k-line file opens without freezing the page', async () => {
    const filler = Array.from({ length: 6000 }, (_, i) => `def filler_${i}(x):\n    return x + ${i}\n`).join('\n');
    const needle = 'def needle_function(a, b):\n    total = a + b\n    return total\n';
    const source = `${filler}\n${needle}`;
    const lineCount = source.split('\n').length - 1;
    expect(lineCount).toBeGreaterThan(17_000);

    await withApp(async ({ page }) => {
      await uploadZip(page, 'big.zip', zipFiles({ 'big/huge.py': source }));
      await waitForState(page, 'ready');
      await openFirstResult(page, 'needle_function', 'huge.py', 'def needle_function');
      expect(await page.locator('[data-testid="code-view"] .line').count()).toBe(lineCount);
      const visible = await page.evaluate(() => {
        const line = document.querySelector('[data-testid="code-view"] .line.hl');
        const viewport = document.querySelector('[data-testid="code-view"] .code-scroll');
        if (!line || !viewport) return false;
        const a = line.getBoundingClientRect();
        const b = viewport.getBoundingClientRect();
        return a.top >= b.top && a.bottom <= b.bottom;
      });
      expect(visible).toBe(true);
      await screenshot(page, 'big-file');
    });
  });
});
