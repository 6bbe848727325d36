// The static-site recipe, end to end: `fathom index -o` builds a bundle in
// "CI", the site is that bundle beside `fathom-explorer.js` and its assets
// (copied from dist/) and one HTML page, served by a plain file server on
// another port. The explorer opens the bundle, searches and shows code,
// with no request leaving the site.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { openSidebar, uploadZip, waitForState } from './app';
import { fathom, repoRoot } from './cli';
import { screenshot, sharedBrowser, withApp } from './browser';
import { type Served, serveDir } from './serve';
import { zipFixture } from './fixtures';

const browser = sharedBrowser({ webgpu: false });
const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:; connect-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:" />
    <title>mini-py-js, explored</title>
    <link rel="icon" href="data:," />
    <script type="module" src="fathom-explorer.js"></script>
  </head>
  <body>
    <h1>mini-py-js</h1>
    <fathom-explorer data-testid="explorer" bundle="mini.fathom" query="compute_total"></fathom-explorer>
  </body>
</html>
`;

/** Words the code does not use for what it does: the static lane finds `CartStore.total`. */
const MEANING_QUERY = 'add up the prices of all items';

let site: string;
let server: Served | undefined;
let url: string;
const appUrl = inject('baseUrl');


describe('a static documentation site', () => {
  beforeAll(async () => {
    site = mkdtempSync(join(tmpdir(), 'fathom-site-'));
    // The CI step of the recipe: index the repository into a bundle.
    fathom(['index', 'tests/fixtures/mini-py-js', '-o', join(site, 'mini.fathom'), '--no-embed']);
    // And one that carries the static lane's vectors (int8), for a page that reads meaning.
    fathom(['index', 'tests/fixtures/mini-py-js', '-o', join(site, 'mini-static.fathom'), '--vectors', 'static']);
    // Publish the component beside it.
    cpSync(join(repoRoot, 'dist/fathom-explorer.js'), join(site, 'fathom-explorer.js'));
    cpSync(join(repoRoot, 'dist/assets'), join(site, 'assets'), { recursive: true });
    writeFileSync(join(site, 'index.html'), PAGE);
    // A page that reads meaning: the static table and the tokenizer beside it, and no MiniLM weights.
    mkdirSync(join(site, 'model'));
    cpSync(join(repoRoot, 'dist/model/minilm-l6-v2.static-v1.safetensors'), join(site, 'model/minilm-l6-v2.static-v1.safetensors'));
    cpSync(join(repoRoot, 'dist/model/minilm-l6-v2.tokenizer.json'), join(site, 'model/minilm-l6-v2.tokenizer.json'));
    writeFileSync(
      join(site, 'semantic.html'),
      PAGE.replace('bundle="mini.fathom" query="compute_total"', `bundle="mini-static.fathom" model="model/" query="${MEANING_QUERY}"`),
    );
    // The same with no query: nothing is read for meaning until the reader asks.
    writeFileSync(join(site, 'semantic-idle.html'), PAGE.replace('bundle="mini.fathom" query="compute_total"', 'bundle="mini-static.fathom" model="model/"'));
    server = await serveDir(site);
    url = server.url;
  }, 30 * 60_000);

  afterAll(() => {
    server?.close();
    rmSync(site, { recursive: true, force: true });
  });

  test('opens the CLI-built bundle in <fathom-explorer>, searches and shows code, all from the site', async () => {
    await withApp(browser(), url, async ({ page, requests }) => {
      const explorer = page.getByTestId('explorer');
      await expect.poll(() => explorer.getAttribute('state'), { timeout: 60_000 }).toBe('ready');
      expect(requests.some((r) => r.endsWith('/mini.fathom'))).toBe(true);
      // The query attribute ran on the bundle: no archive was fetched or parsed.
      const first = explorer.getByTestId('search-result').first();
      await expect.poll(() => first.locator('.cite').textContent(), { timeout: 30_000 }).toMatch(/^pkg\/calc\.py:36-\d+$/);
      // No model on this page: the explorer says once that search reads words,
      // and no answer carries a note about embeddings that will never come.
      expect(await explorer.getByTestId('index-status').textContent()).toContain('search by words (no model on this page)');
      expect(await explorer.getAttribute('data-search')).toBe('lexical');
      const said = (await explorer.getByTestId('search-results').evaluate((list) => list.parentElement?.querySelector('.search-status')?.textContent)) ?? '';
      // It names the lanes that answered (words here), and nothing of MiniLM.
      expect(said).toMatch(/ · lexical · by words\b[^·]*$/);
      expect(said).not.toContain('not ready');
      expect(said).not.toContain('MiniLM');
      await first.click();
      const code = explorer.getByTestId('code-view');
      await expect.poll(() => code.getByTestId('code-path').getAttribute('data-path')).toBe('pkg/calc.py');
      await expect.poll(() => code.getByTestId('code-line-highlighted').count()).toBeGreaterThan(0);
      expect(await code.getByTestId('code-line-highlighted').first().textContent()).toContain('def compute_total');
      await screenshot(page, 'static-site');
    });
  });

  test('with a model folder, the explorer reads meaning with the static table alone: MiniLM is never fetched', async () => {
    const header = JSON.parse(fathom(['stats', join(site, 'mini-static.fathom'), '--json'])).bundle.header;
    expect(header.static_table).toMatch(/^minilm-l6-v2\.static-v1\.safetensors \(sha256 [0-9a-f]+…\)$/);
    expect(header.counts.embedded).toBe(0);
    await withApp(browser(), `${url}semantic.html`, async ({ page, requests }) => {
      const explorer = page.getByTestId('explorer');
      await expect.poll(() => explorer.getAttribute('state'), { timeout: 60_000 }).toBe('ready');
      const list = explorer.getByTestId('search-results');
      await expect.poll(() => list.getAttribute('data-meaning'), { timeout: 30_000 }).toBe('static');
      // The bundle's own static vectors serve: nothing was embedded in the page.
      expect(await explorer.getAttribute('data-static-from')).toBe('bundle');
      const symbols = await explorer.getByTestId('search-result').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.symbol ?? ''));
      expect(symbols.slice(0, 3).join(' '), symbols.join(' ')).toContain('CartStore.total');
      expect(requests.some((r) => r.endsWith('/model/minilm-l6-v2.static-v1.safetensors'))).toBe(true);
      expect(requests.filter((r) => r.includes('minilm-l6-v2.f16'))).toEqual([]);
      await screenshot(page, 'static-site-meaning');
    });
  });

  test('the static table is fetched at the first query, not with the page', async () => {
    await withApp(browser(), `${url}semantic-idle.html`, async ({ page, requests }) => {
      const explorer = page.getByTestId('explorer');
      await expect.poll(() => explorer.getAttribute('state'), { timeout: 60_000 }).toBe('ready');
      await page.waitForTimeout(1000);
      const table = (r: string) => r.includes('/model/');
      expect(requests.filter(table)).toEqual([]);
      await explorer.getByTestId('search-input').fill(MEANING_QUERY);
      const list = explorer.getByTestId('search-results');
      await expect.poll(() => list.getAttribute('data-meaning'), { timeout: 30_000 }).toBe('static');
      expect(requests.some((r) => r.endsWith('/model/minilm-l6-v2.static-v1.safetensors'))).toBe(true);
    });
  });

  test('a bundle exported by the page is read by the CLI, with the same answers', async () => {
    await withApp(browser(), appUrl, async ({ page }) => {
      await uploadZip(page, 'mini-py-js.zip', zipFixture('mini-py-js'));
      await waitForState(page, 'ready');
      const download = page.waitForEvent('download');
      await openSidebar(page);
      await page.getByTestId('export-bundle').click();
      const exported = join(site, 'from-the-page.fathom');
      await (await download).saveAs(exported);
      const cypher = 'MATCH (c:CLASS)-[:HAS_METHOD]->(m) RETURN c.qualified_name, m.name ORDER BY c.qualified_name, m.name';
      const fromPage = JSON.parse(fathom(['query', exported, cypher, '--json']));
      const fromSource = JSON.parse(fathom(['query', 'tests/fixtures/mini-py-js', cypher, '--json']));
      expect(fromPage.rows.length).toBeGreaterThan(5);
      expect(fromPage).toEqual(fromSource);
      const stats = JSON.parse(fathom(['stats', exported, '--json']));
      expect(stats.bundle.header.format).toBe(2);
      expect(stats.files).toBe(9);
    });
  });
});
