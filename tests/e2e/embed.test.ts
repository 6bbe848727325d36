// <fathom-explorer>, the embeddable web component, on its documented example
// page: an archive indexed on load, a prebuilt bundle, bad sources, themes.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { describe, expect, inject, test } from 'vitest';
import { clickWord } from './app';
import { screenshot, sharedBrowser, withApp as withAppIn, type AppPage } from './browser';

const baseUrl = inject('baseUrl');
const exampleUrl = new URL('embed.html', baseUrl).href;
/** A bundle written by the engine's own tests (mini-py-js fixture, format v1). */
const BUNDLE = readFileSync(fileURLToPath(new URL('../../crates/fathom_engine/tests/data/mini-py-js.v1.fathom', import.meta.url)));
const browser = sharedBrowser({ webgpu: false });

function withExample(run: (app: AppPage) => Promise<void>): Promise<void> {
  return withAppIn(browser(), exampleUrl, run);
}

async function stateOf(page: Page): Promise<string | null> {
  return page.getByTestId('explorer').getAttribute('state');
}

/** Points the example's element at a bundle that the test serves from `path` (same origin). */
async function openBundle(page: Page, path: string, body: Buffer, status = 200): Promise<void> {
  await page.route((url) => url.pathname.endsWith(path), (route) => route.fulfill({ status, body, contentType: 'application/octet-stream' }));
  await page.getByTestId('explorer').evaluate((el, bundle) => {
    el.removeAttribute('archive');
    el.setAttribute('bundle', `.${bundle}`);
  }, path);
}

describe('the example page', () => {
  test('indexes the demo archive in the element, searches, opens code, goes to a definition and lists references', async () => {
    await withExample(async ({ page }) => {
      await expect.poll(() => stateOf(page), { timeout: 120_000 }).toBe('ready');
      const explorer = page.getByTestId('explorer');
      // The query attribute ran once the index was open.
      await expect.poll(() => explorer.getByTestId('search-result').count(), { timeout: 30_000 }).toBeGreaterThan(0);
      const first = explorer.getByTestId('search-result').first();
      expect(await first.locator('.cite').textContent()).toMatch(/^web\/src\/client\.ts:\d+-\d+$/);
      const pageScroll = await page.evaluate(() => window.scrollY);
      await first.click();
      const code = explorer.getByTestId('code-view');
      await expect.poll(() => code.getByTestId('code-path').getAttribute('data-path')).toBe('web/src/client.ts');
      // Scrolling to the symbol moves the code only: not the host page, not the element's own bar.
      await expect.poll(() => code.locator('.code-scroll').evaluate((el) => el.scrollTop)).toBeGreaterThan(0);
      expect(await page.evaluate(() => window.scrollY)).toBe(pageScroll);
      const [host, bar] = await Promise.all([explorer.boundingBox(), explorer.locator('.fx-bar').boundingBox()]);
      expect(Math.abs((bar?.y ?? -1) - (host?.y ?? 0))).toBeLessThan(3);
      await expect.poll(() => code.locator('.code').getAttribute('data-highlighted'), { timeout: 10_000 }).toMatch(/^[1-9]/);
      expect(await code.getByTestId('code-line-highlighted').count()).toBeGreaterThan(5);

      // The symbol panel works inside the shadow root, references included.
      const panel = explorer.getByTestId('symbol-panel');
      await expect.poll(() => panel.locator('.symbol-name').getAttribute('data-qualified')).toContain('FathomClient');
      await panel.getByTestId('references-button').click();
      await expect.poll(() => panel.getByTestId('reference').count(), { timeout: 10_000 }).toBeGreaterThan(0);

      // A click on a name in the code goes to its definition (caret lookup through the shadow root).
      await clickWord(page, code.locator('.line', { hasText: 'this.#worker = this.#spawn()' }).first(), '#spawn');
      await expect.poll(() => code.getAttribute('data-definition'), { timeout: 10_000 }).toBe('web/src/client.FathomClient.#spawn');
      await expect.poll(() => panel.locator('.symbol-name').getAttribute('data-qualified'), { timeout: 10_000 }).toBe('web/src/client.FathomClient.#spawn');
      expect(await panel.getByTestId('callers').locator('li').evaluateAll((items) => items.map((li) => (li as HTMLElement).dataset.symbol)))
        .toContain('web/src/client.FathomClient.#replace');
      expect(await panel.getByTestId('show-in-map').count()).toBe(0);
      await screenshot(page, 'embed-example');

      // At a phone's width the results stand above the code, each the full
      // width of the element, and the page does not scroll sideways; wider,
      // they stand side by side.
      const layout = () => explorer.evaluate((el) => {
        const box = (selector: string) => el.shadowRoot!.querySelector(selector)!.getBoundingClientRect();
        const [host, results, code] = [el.getBoundingClientRect(), box('.fx-results'), box('.fx-code')];
        return {
          inputWidth: box('.search-input').width / box('.fx-bar').width,
          sideBySide: code.left >= results.right - 1,
          resultsWidth: results.width / host.width,
          codeWidth: code.width / host.width,
          overflow: document.documentElement.scrollWidth - window.innerWidth,
        };
      });
      for (const width of [390, 1280, 1920]) {
        await page.setViewportSize({ width, height: 844 });
        await expect.poll(async () => (await layout()).sideBySide).toBe(width > 600);
        const seen = await layout();
        expect(seen.overflow, `${width} px`).toBeLessThanOrEqual(0);
        // The query is read whole on a phone: the status gives it the bar's width.
        if (width <= 600) expect(Math.min(seen.resultsWidth, seen.codeWidth, seen.inputWidth)).toBeGreaterThan(0.9);
        else expect(seen.codeWidth).toBeGreaterThan(0.55);
        expect(await first.isVisible()).toBe(true);
        await screenshot(page, `embed-example-${width}`);
      }
    });
  });
});

describe('the element', () => {
  test('opens a prebuilt bundle with no parsing, and refuses a missing or corrupt one in place', async () => {
    await withExample(async ({ page }) => {
      await expect.poll(() => stateOf(page), { timeout: 120_000 }).toBe('ready');
      const explorer = page.getByTestId('explorer');
      await openBundle(page, '/site/repo.fathom', BUNDLE);
      await expect.poll(() => explorer.getByTestId('index-status').textContent(), { timeout: 20_000 }).toMatch(/^repo\.fathom · \d+ files · \d+ symbols · search by words \(no model on this page\) · ready$/);
      await explorer.evaluate((el) => el.setAttribute('query', 'compute_total'));
      await expect.poll(() => explorer.getByTestId('search-result').first().locator('.cite').textContent(), { timeout: 20_000 }).toBe('pkg/calc.py:36-40');

      // A corrupt bundle: the element says why, and keeps working for the next one.
      const corrupt = Buffer.from(BUNDLE);
      for (let i = 64; i < corrupt.length; i += 97) corrupt[i] = (corrupt[i] ?? 0) ^ 0xff;
      await openBundle(page, '/site/corrupt.fathom', corrupt);
      await expect.poll(() => stateOf(page), { timeout: 20_000 }).toBe('error');
      expect(await explorer.getByTestId('error').textContent()).toMatch(/^Could not open corrupt\.fathom: .*(checksum|corrupt|truncated)/i);

      await openBundle(page, '/site/missing.fathom', Buffer.from('not found'), 404);
      await expect.poll(() => explorer.getByTestId('error').textContent()).toContain('HTTP 404');
      expect(await stateOf(page)).toBe('error');

      // A path the server answers with a page (a fallback) is named as such.
      await explorer.evaluate((el) => el.setAttribute('bundle', './no/such/repo.fathom'));
      await expect.poll(() => explorer.getByTestId('error').textContent()).toContain('an HTML page, not a bundle');
      await openBundle(page, '/site/again.fathom', BUNDLE);
      await expect.poll(() => stateOf(page), { timeout: 20_000 }).toBe('ready');
    });
  });

  test('follows its theme attribute and works by keyboard', async () => {
    await withExample(async ({ page }) => {
      await expect.poll(() => stateOf(page), { timeout: 120_000 }).toBe('ready');
      const explorer = page.getByTestId('explorer');
      const background = () => explorer.evaluate((el) => getComputedStyle(el).backgroundColor);
      await explorer.evaluate((el) => el.setAttribute('theme', 'dark'));
      expect(await background()).toBe('rgb(30, 30, 30)');
      await explorer.evaluate((el) => el.setAttribute('theme', 'light'));
      expect(await background()).toBe('rgb(255, 255, 255)');
      await screenshot(page, 'embed-light');

      // Ctrl+K inside the element focuses its search box; arrows and Enter open a result.
      await explorer.locator('.code-scroll').focus();
      await page.keyboard.press('Control+k');
      await page.keyboard.type('SearchPanel');
      await expect.poll(() => explorer.getByTestId('search-results').getAttribute('data-query'), { timeout: 20_000 }).toBe('SearchPanel');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await expect.poll(() => explorer.getByTestId('code-path').getAttribute('data-path')).toBe('web/src/ui/search.ts');
    });
  });
});
