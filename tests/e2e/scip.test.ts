// A bundle indexed with a SCIP index (`fathom index --scip`, a real index
// from scip-python 0.6.6 in tests/fixtures/scip-python) opened in the page:
// the symbol panel marks the edges the index gave or confirmed as precise,
// and the candidate it contradicted is gone.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { searchFor, waitForState } from './app';
import { fathom } from './cli';
import { screenshot, sharedBrowser, withApp } from './browser';

const baseUrl = inject('baseUrl');
const browser = sharedBrowser();
let dir: string;
let bundle: Buffer;

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
      await searchFor(page, 'print_receipt');
      await page.getByTestId('search-result').first().click();
      const panel = page.getByTestId('symbol-panel');
      await expect.poll(() => panel.isVisible()).toBe(true);
      const callees = panel.getByTestId('callees');
      const render = callees.locator('li[data-symbol="shop.views.ReceiptView.render"]');
      await expect.poll(() => render.count()).toBe(1);
      // Fathom found it among two candidates; the index confirmed this one.
      expect(await render.getAttribute('data-reason')).toBe('scip-confirmed');
      expect(await render.getByTestId('precise').textContent()).toBe('precise');
      // The index's own edge, to the standard library.
      const upper = callees.locator('li[data-symbol="python-stdlib@3.11:builtins.str.upper"]');
      expect(await upper.getAttribute('data-reason')).toBe('scip');
      expect(await upper.getByTestId('precise').count()).toBe(1);
      // The other candidate, which the index contradicted, is not listed.
      expect(await callees.locator('li[data-symbol="shop.views.OrderView.render"]').count()).toBe(0);
      await screenshot(page, 'scip-precise');
      // On a phone's width the mark stays beside its callee.
      await page.setViewportSize({ width: 390, height: 844 });
      await render.scrollIntoViewIfNeeded();
      expect(await render.getByTestId('precise').isVisible()).toBe(true);
      await screenshot(page, 'scip-precise-narrow');
    });
  });
});
