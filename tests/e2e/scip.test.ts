// A bundle indexed with a SCIP index (`fathom index --scip`, a real index
// from scip-python 0.6.6 in tests/fixtures/scip-python) opened in the page:
// the symbol panel marks the edges the index gave or confirmed as precise,
// and the candidate it contradicted is gone.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Locator, Page } from 'playwright-core';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { dropFiles, dropZip, openSidebar, searchFor, waitForState } from './app';
import { zipFiles, zipFixture } from './fixtures';
import { fathom } from './cli';
import { screenshot, sharedBrowser, withApp } from './browser';

const baseUrl = inject('baseUrl');
const browser = sharedBrowser();
let dir: string;
let bundle: Buffer;

/**
 * Opens `print_receipt` and checks its callees as the index left them:
 * Fathom found `ReceiptView.render` among two candidates, the index
 * confirmed it, and the other candidate, which it contradicted, is gone.
 * Returns the callees' list.
 */
async function expectPreciseCallees(page: Page): Promise<Locator> {
  await searchFor(page, 'print_receipt');
  await page.getByTestId('search-result').first().click();
  const panel = page.getByTestId('symbol-panel');
  await expect.poll(() => panel.isVisible()).toBe(true);
  const callees = panel.getByTestId('callees');
  const render = callees.locator('li[data-symbol="shop.views.ReceiptView.render"]');
  await expect.poll(() => render.count()).toBe(1);
  expect(await render.getAttribute('data-reason')).toBe('scip-confirmed');
  expect(await render.getByTestId('precise').textContent()).toBe('precise');
  expect(await callees.locator('li[data-symbol="shop.views.OrderView.render"]').count()).toBe(0);
  return callees;
}

describe('edges from a SCIP index', () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'fathom-scip-'));
    const out = join(dir, 'scip-python.fathom');
    fathom(['index', 'tests/fixtures/scip-python', '--scip', 'tests/fixtures/scip-python/index.scip', '--no-embed', '-o', out]);
    bundle = readFileSync(out);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('are marked precise in the symbol panel, and the contradicted candidate is gone', async () => {
    await withApp(browser(), baseUrl, async ({ page }) => {
      await page.getByTestId('import-bundle').setInputFiles({ name: 'scip-python.fathom', mimeType: 'application/octet-stream', buffer: bundle });
      await waitForState(page, 'ready');
      const callees = await expectPreciseCallees(page);
      // The index's own edge, to the standard library.
      const upper = callees.locator('li[data-symbol="python-stdlib@3.11:builtins.str.upper"]');
      expect(await upper.getAttribute('data-reason')).toBe('scip');
      expect(await upper.getByTestId('precise').count()).toBe(1);
      await screenshot(page, 'scip-precise');
      // On a phone's width the mark stays beside its callee.
      const render = callees.locator('li[data-symbol="shop.views.ReceiptView.render"]');
      await page.setViewportSize({ width: 390, height: 844 });
      await render.scrollIntoViewIfNeeded();
      expect(await render.getByTestId('precise').isVisible()).toBe(true);
      await screenshot(page, 'scip-precise-narrow');
    });
  });

  test('an index.scip inside a dropped archive is read, and one dropped beside it too', async () => {
    const index = readFileSync('tests/fixtures/scip-python/index.scip');
    // The package alone, as a GitHub download would wrap it.
    const shop: Record<string, string> = {};
    for (const name of ['__init__.py', 'checkout.py', 'factory.py', 'views.py']) {
      shop[`shop-main/shop/${name}`] = readFileSync(`tests/fixtures/scip-python/shop/${name}`, 'utf8');
    }
    await withApp(browser(), baseUrl, async ({ page }) => {
      // The fixture's folder holds its index: the archive carries it.
      await dropZip(page, 'scip-python.zip', zipFixture('scip-python'));
      await waitForState(page, 'ready');
      // The summary says what the index covered, and how far Fathom agreed.
      const summary = await page.getByTestId('summary-scip').textContent();
      expect(summary).toContain('index.scip: scip-python 0.6.6');
      expect(summary).toContain('4 of 4 documents used');
      expect(await page.getByTestId('summary-scip-agreement').textContent()).toContain('at 3 of 3 call sites');
      await expectPreciseCallees(page);
      await screenshot(page, 'scip-inside-archive');
      await openSidebar(page);
      await page.getByTestId('summary-scip').scrollIntoViewIfNeeded();
      await screenshot(page, 'scip-summary');
      await page.setViewportSize({ width: 390, height: 844 });
      await page.getByTestId('summary-scip').scrollIntoViewIfNeeded();
      expect(await page.getByTestId('summary-scip').isVisible()).toBe(true);
      await screenshot(page, 'scip-summary-narrow');
    });
    await withApp(browser(), baseUrl, async ({ page }) => {
      await dropFiles(page, [
        { name: 'shop.zip', bytes: zipFiles(shop), type: 'application/zip' },
        { name: 'index.scip', bytes: index },
      ]);
      await waitForState(page, 'ready');
      await expectPreciseCallees(page);
    });
    await withApp(browser(), baseUrl, async ({ page }) => {
      // A damaged index beside it is listed with its cause, and the graph is
      // read from syntax alone: both candidates of `render` stay.
      await dropFiles(page, [
        { name: 'shop.zip', bytes: zipFiles(shop), type: 'application/zip' },
        { name: 'broken.scip', bytes: index.subarray(0, Math.floor(index.length / 2)) },
      ]);
      await waitForState(page, 'ready');
      expect(await page.getByTestId('summary-scip').count()).toBe(0);
      await openSidebar(page);
      const list = page.getByTestId('skipped');
      for (const group of await list.locator('details summary').all()) await group.click();
      const broken = list.locator('li[data-path="broken.scip"]');
      await expect.poll(() => broken.count()).toBe(1);
      expect(await broken.textContent()).toContain('not a readable SCIP index');
      await searchFor(page, 'print_receipt');
      await page.getByTestId('search-result').first().click();
      const callees = page.getByTestId('symbol-panel').getByTestId('callees');
      await expect.poll(() => callees.locator('li[data-symbol="shop.views.OrderView.render"]').count()).toBe(1);
      expect(await callees.getByTestId('precise').count()).toBe(0);
    });
  });
});
