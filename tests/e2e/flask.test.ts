// The explorer's bar, on a real project: the Flask 3.0.3 sdist from PyPI
// (fetched by scripts/corpora.sh). One visit indexes it and checks search, go
// to definition, callers and references, the map, the query console and a
// feature card with its copy-as-context; a reload reopens it from the
// browser's library, and an offline reload does too. Through all of it the
// page requests nothing from another origin.
import { readFileSync } from 'node:fs';
import { describe, expect, inject, test } from 'vitest';
import { clickWord, searchFor, waitForState } from './app';
import { openApp, screenshot, sharedBrowser } from './browser';

const baseUrl = inject('baseUrl');
const corpora = process.env.FATHOM_CORPORA ?? `${process.env.HOME}/.cache/fathom/corpora`;
const SDIST = 'flask-3.0.3.tar.gz';
const browser = sharedBrowser({ webgpu: false });

describe('Flask 3.0.3, end to end', () => {
  test('search, definition, callers, map, query, feature card, then reloads from the cache, online and offline', async () => {
    const sdist = readFileSync(`${corpora}/${SDIST}`);
    const app = await openApp(browser(), baseUrl, { serviceWorker: true });
    const { page } = app;
    try {
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
      await page.getByTestId('archive-input').setInputFiles({ name: SDIST, mimeType: 'application/gzip', buffer: sdist });
      await waitForState(page, 'ready');
      expect(await page.locator('#status-line').getAttribute('data-source')).toBe('indexed');
      expect(Number(await page.getByTestId('summary-files').getAttribute('data-count'))).toBeGreaterThan(60);

      // Search: a name, then a description; both cite file:line.
      await searchFor(page, 'url_for');
      const cites = await page.getByTestId('search-result').locator('.cite').allTextContents();
      expect(cites.some((c) => /^src\/flask\/helpers\.py:\d+-\d+$/.test(c))).toBe(true);
      await searchFor(page, 'register a blueprint on the application');
      const described = await page.getByTestId('search-result').locator('.cite').allTextContents();
      expect(described.slice(0, 5).some((c) => c.startsWith('src/flask/sansio/'))).toBe(true);

      // Go to definition: `self.dispatch_request()` inside Flask.full_dispatch_request.
      await searchFor(page, 'full_dispatch_request');
      await page.getByTestId('search-result').filter({ hasText: 'src/flask/app.py' }).first().click();
      const code = page.getByTestId('code-view');
      await expect.poll(() => code.getByTestId('code-path').getAttribute('data-path')).toBe('src/flask/app.py');
      await expect.poll(() => code.locator('.code').getAttribute('data-highlighted'), { timeout: 10_000 }).toMatch(/^[1-9]/);
      await clickWord(page, code.locator('.line', { hasText: 'rv = self.dispatch_request()' }).first(), 'dispatch_request');
      await expect.poll(() => code.getAttribute('data-definition'), { timeout: 10_000 }).toMatch(/\.Flask\.dispatch_request$/);
      const definitionLine = Number(await code.getByTestId('code-line-highlighted').first().getAttribute('data-line'));
      expect(await code.locator(`.line[data-line="${definitionLine}"]`).textContent()).toContain('def dispatch_request(self)');

      // Callers, with the confidence of each edge, and references by file and line.
      const panel = page.getByTestId('symbol-panel');
      await expect.poll(() => panel.locator('.symbol-name').getAttribute('data-qualified')).toMatch(/\.Flask\.dispatch_request$/);
      const callers = await panel.getByTestId('callers').locator('li').evaluateAll((items) => items.map((li) => (li as HTMLElement).dataset.symbol));
      expect(callers.some((c) => c?.endsWith('.Flask.full_dispatch_request'))).toBe(true);
      expect(await panel.getByTestId('callers').locator('.edge-meta').first().textContent()).toMatch(/^\d\.\d\d /);
      await panel.getByTestId('references-button').click();
      await expect.poll(() => panel.getByTestId('reference').count(), { timeout: 10_000 }).toBeGreaterThan(0);
      await screenshot(page, 'flask-code');

      // The map of the whole repository, drawn with WebGL.
      await page.getByTestId('tab-map').click();
      await page.getByTestId('map-level-files').click();
      const map = page.getByTestId('graph-view');
      await expect.poll(() => map.getAttribute('data-nodes'), { timeout: 20_000 }).toMatch(/^\d{4,}$/);
      await expect.poll(() => map.getAttribute('data-layout'), { timeout: 30_000 }).toBe('done');
      expect(await page.locator('[data-testid="map-canvas"] canvas').count()).toBeGreaterThan(1);
      await screenshot(page, 'flask-map');

      // The query console: Flask's methods, highlighted on the map.
      await page.getByTestId('query-console').locator('summary').click();
      await page.getByTestId('query-input').fill(
        "MATCH (c:CLASS)-[:HAS_METHOD]->(m:METHOD) WHERE c.name = 'Flask' RETURN m.qualified_name ORDER BY m.name");
      await page.getByTestId('query-run').click();
      await expect.poll(() => page.getByTestId('query-count').textContent(), { timeout: 10_000 }).toMatch(/^[1-9]\d+ rows/);
      const methods = await page.locator('.query-table td').allTextContents();
      expect(methods.some((m) => m.endsWith('.Flask.dispatch_request'))).toBe(true);
      await page.getByTestId('query-map').click();
      await expect.poll(() => map.getAttribute('data-focus'), { timeout: 20_000 }).toMatch(/^[1-9]\d+$/);

      // A feature card for a question, and its Markdown for an LLM.
      const question = 'how are blueprints registered';
      await page.getByTestId('search-input').fill(question);
      await page.getByTestId('card-button').click();
      const card = page.getByTestId('feature-card');
      await expect.poll(() => card.getAttribute('data-state'), { timeout: 30_000 }).toBe('ready');
      const symbols = await page.getByTestId('card-symbols').locator('[data-symbol]').evaluateAll((b) => b.map((e) => (e as HTMLElement).dataset.symbol ?? ''));
      expect(symbols.some((s) => /blueprint/i.test(s) && /register/i.test(s))).toBe(true);
      expect(await page.getByTestId('card-graph').locator('.ag-edge').count()).toBeGreaterThan(0);
      await screenshot(page, 'flask-card');
      await page.getByTestId('card-copy').click();
      await expect.poll(() => card.getAttribute('data-copied')).toMatch(/^\d+$/);
      const markdown = await page.evaluate(() => navigator.clipboard.readText());
      expect(markdown.startsWith(`# ${question}`)).toBe(true);
      expect(markdown).toContain('```python');
      expect(markdown).toMatch(/src\/flask\/[\w/]+\.py:\d+/);

      // Reload: the index comes back from the browser's library, without parsing.
      await expect.poll(() => page.getByTestId('recent').locator(`li[data-name="${SDIST}"]`).count(), { timeout: 20_000 }).toBe(1);
      await page.reload();
      await page.getByTestId('recent').locator(`li[data-name="${SDIST}"] [data-testid="recent-open"]`).click();
      await waitForState(page, 'ready');
      expect(await page.locator('#status-line').getAttribute('data-source')).toBe('library');
      await searchFor(page, 'url_for');
      expect(await page.getByTestId('search-result').count()).toBeGreaterThan(0);

      // Offline: the service worker serves the app and the engine; the library serves the index.
      await page.evaluate(async () => {
        await navigator.serviceWorker.ready;
      });
      await expect.poll(() => page.evaluate(async () => {
        const keys = (await (await caches.open('fathom-v1')).keys()).map((r) => new URL(r.url).pathname);
        return keys.some((k) => k.includes('fathom_wasm_bg')) && keys.some((k) => k.includes('worker'));
      }), { timeout: 60_000 }).toBe(true);
      await page.context().setOffline(true);
      await page.reload();
      await page.getByTestId('recent').locator(`li[data-name="${SDIST}"] [data-testid="recent-open"]`).click();
      await waitForState(page, 'ready');
      expect(await page.locator('#status-line').getAttribute('data-source')).toBe('library');
      await searchFor(page, 'full_dispatch_request');
      expect(await page.getByTestId('search-result').first().locator('.cite').textContent()).toMatch(/^src\/flask\/app\.py:\d+-\d+$/);

      expect(app.foreignRequests()).toEqual([]);
      expect(app.pageErrors).toEqual([]);
    } finally {
      await page.context().setOffline(false);
      await app.close();
    }
  });
});
