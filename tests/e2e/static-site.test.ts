// The static-site recipe, end to end: `fathom index -o` builds a bundle in
// "CI", the site is that bundle beside `fathom-explorer.js` and its assets
// (copied from dist/) and one HTML page, served by a plain file server on
// another port. The explorer opens the bundle, searches and shows code,
// with no request leaving the site.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { openSidebar, uploadZip, waitForState } from './app';
import { fathom, fathomBinary, repoRoot } from './cli';
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

/** Flask's sdist, from scripts/corpora.sh. */
const FLASK = `${process.env.FATHOM_CORPORA ?? `${homedir()}/.cache/fathom/corpora`}/flask-3.0.3.tar.gz`;

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
    // A real project, whole and split (`--split`: a root and items, read in parts).
    fathom(['index', FLASK, '--vectors', 'none', '-o', join(site, 'flask.fathom')]);
    fathom(['index', FLASK, '--split', '--vectors', 'none', '-o', join(site, 'flask-split')]);
    writeFileSync(join(site, 'flask.html'), PAGE.replace('bundle="mini.fathom" query="compute_total"', 'bundle="flask.fathom" query="url_for"').replaceAll('mini-py-js', 'Flask'));
    writeFileSync(join(site, 'split.html'), PAGE.replace('bundle="mini.fathom" query="compute_total"', 'bundle="flask-split/" query="url_for"').replaceAll('mini-py-js', 'Flask'));
    // The same, asking before an impact reads more than 1 KB (a site's hub reads megabytes).
    writeFileSync(join(site, 'split-ask.html'), PAGE.replace('bundle="mini.fathom" query="compute_total"', 'bundle="flask-split/" query="Flask" ask-above="0.001"').replaceAll('mini-py-js', 'Flask'));
    // The same, kept whole in the browser once open (an offline demo).
    writeFileSync(join(site, 'split-offline.html'), PAGE.replace('bundle="mini.fathom" query="compute_total"', 'bundle="flask-split/" query="url_for" offline').replaceAll('mini-py-js', 'Flask'));
    // Flask with the static lane, whole and split: the split page reads meaning in parts (the tokenizer, never the table).
    fathom(['index', FLASK, '--vectors', 'static', '-o', join(site, 'flask-static.fathom')]);
    fathom(['index', FLASK, '--split', '--vectors', 'static', '-o', join(site, 'flask-split-static')]);
    for (const [html, bundle] of [['flask-meaning.html', 'flask-static.fathom'], ['split-meaning.html', 'flask-split-static/']] as const) {
      writeFileSync(join(site, html), PAGE.replace('bundle="mini.fathom" query="compute_total"', `bundle="${bundle}" model="model/" query="how are errors handled"`).replaceAll('mini-py-js', 'Flask'));
    }
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

  test('a split bundle is read in parts: the root, then what each question needs, each once; the answers are the whole bundle\'s', async () => {
    const queries = ['url_for', 'Blueprint', 'session cookie', 'how are errors handled'];
    /** Each query's citations, top ten, as the explorer at `page` shows them. */
    const answers = async (html: string) => {
      let seen: {
        cited: string[][]; answers: unknown[]; keywords: (string | null)[]; path: string | null; requests: string[]; first: string[];
        fetched: { items: number; bytes: number } | null | undefined; status: string | null;
        panel: string; impact: string[]; references: string[]; cypher: unknown[]; costly: string | null;
      } | undefined;
      await withApp(browser(), `${url}${html}`, async ({ page, requests }) => {
        const explorer = page.getByTestId('explorer');
        await expect.poll(() => explorer.getAttribute('state'), { timeout: 60_000 }).toBe('ready');
        const cited: string[][] = [];
        // What the page read for its first answer (its query attribute's).
        await expect.poll(() => explorer.getByTestId('search-results').getAttribute('data-query'), { timeout: 30_000 }).toBe(queries[0]);
        const first = [...requests];
        // The reader's own count of what it fetched (null over a whole bundle).
        const fetched = await page.evaluate(() => document.querySelector('fathom-explorer')?.client?.splitFetched());
        for (const query of queries) {
          await explorer.getByTestId('search-input').fill(query);
          const list = explorer.getByTestId('search-results');
          await expect.poll(() => list.getAttribute('data-query'), { timeout: 30_000 }).toBe(query);
          cited.push(await explorer.getByTestId('search-result').evaluateAll((rows) => rows.map((r) => r.querySelector('.cite')?.textContent ?? '')));
        }
        // A split page lists the top ten, and the rest on request.
        const more = explorer.getByTestId('more-results');
        if (html === 'split.html') {
          expect(await explorer.getByTestId('search-result').count()).toBe(10);
          await more.click();
          await expect.poll(() => explorer.getByTestId('search-result').count(), { timeout: 30_000 }).toBeGreaterThan(10);
        }
        expect(await more.count()).toBe(0);
        cited.push(await explorer.getByTestId('search-result').evaluateAll((rows) => rows.map((r) => r.querySelector('.cite')?.textContent ?? '')));
        // Each query's top ten as the engine answers them, whole: hits with their explanations and snippets, and files.
        const answers = await page.evaluate(async (queries) => {
          const client = document.querySelector('fathom-explorer')?.client;
          if (!client) throw new Error('no client');
          const out = [];
          for (const query of queries) {
            const { hits, files } = await client.search(query, { k: 10, mode: 'lexical' });
            out.push({ hits, files });
          }
          return out;
        }, queries);
        // Opening the first result shows its file, with its lines marked.
        await explorer.getByTestId('search-result').first().click();
        const code = explorer.getByTestId('code-view');
        await expect.poll(() => code.getByTestId('code-line-highlighted').count(), { timeout: 30_000 }).toBeGreaterThan(0);
        const path = await code.getByTestId('code-path').getAttribute('data-path');
        // Coloured as the engine colours it: the viewer reads the colours the split bundle stores.
        await expect.poll(() => code.locator('.tok-keyword').count(), { timeout: 30_000 }).toBeGreaterThan(10);
        const keywords = await code.locator('.tok-keyword').evaluateAll((spans) => spans.slice(0, 40).map((s) => s.textContent));
        // Its symbol's panel (callers, callees, tests), and its impact on request: over a split bundle, the edges around it are fetched.
        const symbolPanel = explorer.getByTestId('symbol-panel');
        await symbolPanel.waitFor({ state: 'visible', timeout: 30_000 });
        await expect.poll(() => symbolPanel.getByTestId('callers').locator('li').count(), { timeout: 30_000 }).toBeGreaterThan(0);
        const panel = (await symbolPanel.innerText()).replace(/\s+/g, ' ');
        await symbolPanel.getByTestId('impact-button').click();
        const impactList = symbolPanel.getByTestId('impact-list');
        await impactList.waitFor({ state: 'visible', timeout: 30_000 });
        const impact = await impactList.locator('li').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-symbol') ?? ''));
        // Its references: over a split bundle, the files they are in are read for their lines.
        await symbolPanel.getByTestId('references-button').click();
        const referenceRows = symbolPanel.getByTestId('reference');
        await expect.poll(() => referenceRows.count(), { timeout: 30_000 }).toBeGreaterThan(0);
        const references = await referenceRows.evaluateAll((rows) => rows.map((r) => `${r.getAttribute('data-from')}@${r.getAttribute('data-line')}:${r.getAttribute('data-type')}`));
        // Cypher through the client: named nodes and their neighbourhood read their items; one that
        // matches every node, allowed less than the whole graph, is refused first, saying how much it needs.
        const { cypher, costly } = await page.evaluate(async () => {
          const client = document.querySelector('fathom-explorer')?.client;
          if (!client) throw new Error('no client');
          const cypher = [];
          for (const text of [
            "MATCH (f {name: 'url_for'})<-[:CALLS*1..2]-(c) RETURN DISTINCT c.qualified_name, c.file_path ORDER BY c.qualified_name",
            "MATCH (c:CLASS {name: 'Flask'})-[r:HAS_METHOD]->(m) RETURN id(r), m.name, m.signature ORDER BY m.name LIMIT 8",
          ]) {
            cypher.push(await client.query(text));
          }
          const costly = await client.query('MATCH (n:FUNCTION) RETURN count(n)', {}, { allowBytes: 100_000 }).then(
            (rows) => (rows.rows.length > 0 ? null : 'no rows'),
            (error: Error) => `${error.name}: ${error.message}`,
          );
          return { cypher, costly };
        });
        if (html === 'split.html') {
          await screenshot(page, 'static-site-split');
          await page.setViewportSize({ width: 390, height: 844 });
          await screenshot(page, 'static-site-split-narrow');
        }
        seen = { cited, answers, keywords, path, requests: [...requests], first, fetched, status: await explorer.getByTestId('index-status').textContent(), panel, impact, references, cypher, costly };
      });
      if (!seen) throw new Error(`${html} was not visited`);
      return seen;
    };
    const whole = await answers('flask.html');
    const split = await answers('split.html');
    expect(split.answers).toEqual(whole.answers);
    // The list shows the top ten (grouped by file), then all the whole page shows.
    for (const [at, rows] of split.cited.slice(0, queries.length).entries()) {
      expect(whole.cited[at]).toEqual(expect.arrayContaining(rows));
    }
    expect(split.cited.at(-1)).toEqual(whole.cited.at(-1));
    expect(split.cited[0]?.[0]).toMatch(/^src\/flask\/app\.py:\d+-\d+$/);
    expect(split.path).toBe(whole.path);
    expect(split.keywords).toEqual(whole.keywords);
    expect(split.panel).toBe(whole.panel);
    expect(split.impact).toEqual(whole.impact);
    expect(split.impact.length).toBeGreaterThan(0);
    expect(split.references).toEqual(whole.references);
    expect(split.cypher).toEqual(whole.cypher);
    expect(JSON.stringify(split.cypher)).toContain('flask.helpers.url_for');
    // A whole bundle holds the graph already: nothing to ask.
    expect(whole.costly).toBeNull();
    expect(split.costly).toMatch(/^CostlyQuery: this would fetch at least [\d.]+ MB more of the bundle \(\d+ items in its next step\), past the 0\.1 MB/);
    expect(split.status).toContain('search by words');
    // The site's own files only; the root once, and no item twice.
    const read = split.requests.filter((r) => r.includes('/flask-split/'));
    expect(read.filter((r) => r.endsWith('/flask-split/root.fathom'))).toHaveLength(1);
    const items = read.filter((r) => /\/flask-split\/s\/[0-9a-f]{16}\.bin$/.test(r));
    expect(items.length).toBe(read.length - 1);
    expect(new Set(items).size).toBe(items.length);
    expect(items.length).toBeGreaterThan(0);
    // Not the whole bundle: the questions left items unread.
    expect(items.length).toBeLessThan(readdirSync(join(site, 'flask-split/s')).length);
    // The first answer read what the CLI reads for the same question, no more.
    const native = spawnSync(fathomBinary(), ['search', join(site, 'flask-split/'), 'url_for'], { encoding: 'utf8' }).stderr;
    const said = /read (\d+) items/.exec(native);
    const firstItems = split.first.filter((r) => r.includes('/flask-split/s/'));
    // (The CLI counts the root among them.)
    expect(firstItems.length + 1).toBe(Number(said?.[1]));
    expect(split.fetched?.items).toBe(firstItems.length);
    expect(split.fetched?.bytes).toBeGreaterThan(0);
    expect(whole.fetched).toBeNull();
    expect(split.requests.some((r) => r.endsWith('/flask.fathom'))).toBe(false);
    // The split page loads the viewer (the engine without grammars), never the engine.
    // It comes xz-compressed (the worker inflates it as it downloads), with its decoder.
    expect(split.requests.filter((r) => r.includes('/assets/fathom_wasm_viewer_bg'))).toEqual([expect.stringMatching(/\.xz$/)]);
    expect(split.requests.filter((r) => r.includes('/assets/xz-decompress'))).toHaveLength(1);
    expect(whole.requests.filter((r) => r.includes('/assets/xz-decompress'))).toEqual([]);
    expect(split.requests.filter((r) => /\/assets\/fathom_wasm_bg/.test(r))).toEqual([]);
    expect(whole.requests.filter((r) => r.includes('/assets/fathom_wasm_viewer_bg'))).toEqual([]);
  });

  test('a split bundle with the static lane reads meaning in parts: the tokenizer, never the table; its answers are the whole bundle\'s', async () => {
    const queries = ['how are errors handled', 'register a blueprint', 'render a template with context', 'session cookie'];
    const answers = async (html: string) => {
      const seen: { symbols: string[][]; meaning: (string | null)[]; requests: string[]; status: string; fetched?: { meaning: number } | null | undefined } = {
        symbols: [], meaning: [], requests: [], status: '',
      };
      await withApp(browser(), `${url}${html}`, async ({ page, requests }) => {
        const explorer = page.getByTestId('explorer');
        await expect.poll(() => explorer.getAttribute('state'), { timeout: 60_000 }).toBe('ready');
        const list = explorer.getByTestId('search-results');
        await expect.poll(() => list.getAttribute('data-query'), { timeout: 30_000 }).toBe(queries[0]);
        for (const query of queries) {
          await explorer.getByTestId('search-input').fill(query);
          await expect.poll(() => list.getAttribute('data-query'), { timeout: 30_000 }).toBe(query);
          await expect.poll(() => list.getAttribute('data-meaning'), { timeout: 30_000 }).toBe('static');
          // The engine's answer through the page's client, as the explorer asks it (hybrid, ten).
          const answer = await page.evaluate(
            (q) => document.querySelector('fathom-explorer')?.client?.search(q, { k: 10, mode: 'hybrid' }),
            query,
          );
          seen.meaning.push(answer?.params.meaning ?? null);
          seen.symbols.push((answer?.hits ?? []).map((h) => h.symbol));
        }
        seen.status = (await explorer.getByTestId('index-status').textContent()) ?? '';
        seen.fetched = await page.evaluate(() => document.querySelector('fathom-explorer')?.client?.splitFetched());
        seen.requests = [...requests];
        if (html === 'split-meaning.html') {
          await screenshot(page, 'static-site-split-meaning');
          await page.setViewportSize({ width: 390, height: 844 });
          await screenshot(page, 'static-site-split-meaning-narrow');
        }
      });
      return seen;
    };
    const whole = await answers('flask-meaning.html');
    const split = await answers('split-meaning.html');
    // By meaning on both: the split page's lane is the chunks its codes rank best, scored exactly.
    expect(split.meaning).toEqual(queries.map(() => 'static'));
    // On Flask every partition is near enough to read, and the answers are the whole bundle's.
    expect(split.symbols).toEqual(whole.symbols);
    expect(split.symbols.every((top) => top.length === 10)).toBe(true);
    expect(split.status).not.toContain('search by words');
    // The tokenizer once, from the model folder; never the table or MiniLM; the lane's items from the bundle.
    expect(split.requests.filter((r) => r.endsWith('/model/minilm-l6-v2.tokenizer.json'))).toHaveLength(1);
    expect(split.requests.filter((r) => r.includes('static-v1') || r.includes('minilm-l6-v2.f16'))).toEqual([]);
    expect(split.fetched?.meaning).toBeGreaterThan(0);
    expect(split.requests.some((r) => r.endsWith('/flask-static.fathom'))).toBe(false);
  });

  test('a split bundle\'s impact that would read past what the page allows asks first, and fetches it once allowed', async () => {
    await withApp(browser(), `${url}split-ask.html`, async ({ page, requests }) => {
      const explorer = page.getByTestId('explorer');
      await expect.poll(() => explorer.getAttribute('state'), { timeout: 60_000 }).toBe('ready');
      await expect.poll(() => explorer.getByTestId('search-results').getAttribute('data-query'), { timeout: 30_000 }).toBe('Flask');
      await explorer.getByTestId('search-result').first().click();
      const panel = explorer.getByTestId('symbol-panel');
      await panel.waitFor({ state: 'visible', timeout: 30_000 });
      const symbol = await panel.locator('.symbol-name').textContent();
      // Through the client as well: refused with what it would cost, and nothing fetched for it.
      const refused = await page.evaluate(async () => {
        const client = document.querySelector('fathom-explorer')?.client;
        if (!client) throw new Error('no client');
        const before = (await client.splitFetched())?.bytes;
        const error = await client.impact('flask.app.Flask', 4, { allowBytes: 1000 }).then(() => null, (e: Error & { bytes?: number }) => ({ name: e.name, bytes: e.bytes }));
        return { error, fetched: (await client.splitFetched())?.bytes === before };
      });
      expect(refused.error?.name).toBe('CostlyQuery');
      expect(refused.error?.bytes).toBeGreaterThan(1000);
      expect(refused.fetched).toBe(true);
      const read = requests.length;
      await panel.getByTestId('impact-button').click();
      const costly = panel.getByTestId('impact-costly');
      await costly.waitFor({ state: 'visible', timeout: 30_000 });
      expect(await costly.textContent()).toMatch(/walking them reads at least [\d.]+ MB more of the bundle/);
      expect(requests.length).toBe(read);
      await costly.scrollIntoViewIfNeeded();
      await screenshot(page, 'static-site-split-impact-asks');
      await page.setViewportSize({ width: 390, height: 844 });
      await costly.scrollIntoViewIfNeeded();
      await screenshot(page, 'static-site-split-impact-asks-narrow');
      await panel.getByTestId('impact-fetch').click();
      const list = panel.getByTestId('impact-list');
      await list.waitFor({ state: 'visible', timeout: 30_000 });
      expect(await list.locator('li').count()).toBeGreaterThan(0);
      expect(requests.length).toBeGreaterThan(read);
      expect(symbol).toBeTruthy();
    });
  });

  test('a split bundle\'s missing or altered item fails that question by name; the next question reads it again', async () => {
    await withApp(browser(), `${url}split.html`, async ({ page }) => {
      const explorer = page.getByTestId('explorer');
      const list = explorer.getByTestId('search-results');
      const status = () => list.evaluate((l) => l.parentElement?.querySelector('.search-status')?.textContent ?? '');
      await expect.poll(() => explorer.getAttribute('state'), { timeout: 60_000 }).toBe('ready');
      await expect.poll(() => list.getAttribute('data-query'), { timeout: 30_000 }).toBe('url_for');
      const first = await explorer.getByTestId('search-result').first().locator('.cite').textContent();
      // The host loses every item not yet read, then serves them altered (one byte changed), then mends.
      let mode: 'missing' | 'altered' | 'mended' = 'missing';
      await page.route('**/flask-split/s/*.bin', async (route) => {
        if (mode === 'mended') return route.continue();
        if (mode === 'missing') return route.fulfill({ status: 404, body: 'not found' });
        const file = join(site, 'flask-split/s', new URL(route.request().url()).pathname.split('/').pop() ?? '');
        const body = Buffer.from(readFileSync(file));
        body[body.length - 12] = (body[body.length - 12] ?? 0) ^ 0x55;
        return route.fulfill({ status: 200, body, contentType: 'application/octet-stream' });
      });
      const ask = async (query: string) => {
        await explorer.getByTestId('search-input').fill(query);
        await expect.poll(() => list.getAttribute('data-query'), { timeout: 30_000 }).toBe(query);
      };
      await ask('teardown appcontext');
      await expect.poll(status).toMatch(/Search failed: .* is missing: .*\/flask-split\/s\/[0-9a-f]{16}\.bin answered HTTP 404/);
      mode = 'altered';
      await ask('teardown appcontext again');
      await expect.poll(status).toMatch(/Search failed: .*s\/[0-9a-f]{16}\.bin\) was altered/);
      // What was read before still answers, from what is held: nothing is fetched.
      await ask('url_for');
      await expect.poll(() => explorer.getByTestId('search-result').first().locator('.cite').textContent()).toBe(first);
      // And the mended host answers the rest.
      mode = 'mended';
      await ask('teardown appcontext');
      await expect.poll(status).not.toContain('failed');
      expect(await explorer.getByTestId('search-result').count()).toBeGreaterThan(0);
    });
  });

  test('a split bundle kept offline answers with the network off; a later visit reads only its root from the host, and a kept copy altered since is read again', async () => {
    await withApp(browser(), `${url}split-offline.html`, async ({ page, requests }) => {
      const explorer = page.getByTestId('explorer');
      const list = explorer.getByTestId('search-results');
      await expect.poll(() => explorer.getAttribute('state'), { timeout: 60_000 }).toBe('ready');
      await expect.poll(() => explorer.getAttribute('data-offline'), { timeout: 120_000 }).toBe('kept');
      expect(await explorer.getByTestId('index-status').textContent()).toMatch(/ · kept offline \([\d.]+ MB\)$/);
      // Every item of the bundle, the summary's too, each fetched once.
      const items = requests.filter((r) => /\/flask-split\/s\/[0-9a-f]{16}\.bin$/.test(r));
      expect(new Set(items).size).toBe(items.length);
      expect(items.length).toBe(readdirSync(join(site, 'flask-split/s')).length);
      // The network off: questions no one asked yet, a file, a symbol's impact.
      await page.context().setOffline(true);
      // Off for the explorer's worker too: the host cannot be reached from it.
      const worker = page.workers().find((w) => w.url().includes('/assets/worker'));
      expect(await worker?.evaluate(async (root) => fetch(`${root}?offline`).then(() => 'reached', () => 'unreachable'), `${url}flask-split/root.fathom`)).toBe('unreachable');
      const before = requests.length;
      for (const query of ['register a blueprint', 'how are sessions signed']) {
        await explorer.getByTestId('search-input').fill(query);
        await expect.poll(() => list.getAttribute('data-query'), { timeout: 30_000 }).toBe(query);
        const said = await list.evaluate((l) => l.parentElement?.querySelector('.search-status')?.textContent ?? '');
        expect(said).not.toContain('failed');
        expect(await explorer.getByTestId('search-result').count()).toBeGreaterThan(0);
      }
      await explorer.getByTestId('search-result').first().click();
      const code = explorer.getByTestId('code-view');
      await expect.poll(() => code.getByTestId('code-path').getAttribute('data-path'), { timeout: 30_000 }).toMatch(/\.py$/);
      await expect.poll(() => code.getByTestId('code-line-highlighted').count(), { timeout: 30_000 }).toBeGreaterThan(0);
      const impact = await page.evaluate(async () => {
        const client = document.querySelector('fathom-explorer')?.client;
        if (!client) throw new Error('no client');
        return (await client.impact('flask.helpers.url_for', 2)).length;
      });
      expect(impact).toBeGreaterThan(0);
      // Nothing reached the host: each item came from what the browser kept.
      expect(requests.slice(before).filter((r) => !r.includes('/flask-split/'))).toEqual([]);
      await page.context().setOffline(false);
      // A later visit in the same browser: the root from the host (a new build may have replaced it), every item kept.
      const later = await page.context().newPage();
      const visited = requests.length;
      await later.goto(`${url}split.html`);
      const again = later.getByTestId('explorer');
      await expect.poll(() => again.getAttribute('state'), { timeout: 60_000 }).toBe('ready');
      await expect.poll(() => again.getByTestId('search-results').getAttribute('data-query'), { timeout: 30_000 }).toBe('url_for');
      expect(await again.getByTestId('search-result').count()).toBe(10);
      const laterCited = await again.getByTestId('search-result').evaluateAll((rows) => rows.map((r) => r.querySelector('.cite')?.textContent ?? ''));
      const bundleReads = requests.slice(visited).filter((r) => r.includes('/flask-split/'));
      expect(bundleReads.filter((r) => r.endsWith('/root.fathom'))).toHaveLength(1);
      const fromCache = await later.evaluate(async () => (await document.querySelector('fathom-explorer')?.client?.splitFetched())?.items ?? 0);
      expect(fromCache).toBeGreaterThan(0);
      // (Served from the kept copies: a request the worker's cache answers never reaches the network.)
      expect(bundleReads.filter((r) => r.includes('/flask-split/s/'))).toEqual([]);
      await later.close();
      // Every kept item altered (a byte flipped): a visit refuses each copy it reads, drops it, reads the host's, and keeps that.
      /** The stores the browser keeps the Flask split bundle's builds in. */
      const builds = () => page.evaluate(async () => (await caches.keys()).filter((k) => k.startsWith('fathom-split-v2 ') && k.endsWith('/flask-split/')));
      const [build] = await builds();
      expect(await builds()).toHaveLength(1);
      const altered = await page.evaluate(async (name) => {
        const store = await caches.open(name);
        let count = 0;
        for (const request of await store.keys()) {
          if (!request.url.includes('/s/')) continue;
          const bytes = new Uint8Array(await (await store.match(request))!.arrayBuffer());
          bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
          await store.put(request, new Response(bytes));
          count += 1;
        }
        return count;
      }, build ?? '');
      expect(altered).toBe(items.length);
      const visit = async () => {
        const at = requests.length;
        const tab = await page.context().newPage();
        await tab.goto(`${url}split.html`);
        const explorer = tab.getByTestId('explorer');
        await expect.poll(() => explorer.getAttribute('state'), { timeout: 60_000 }).toBe('ready');
        await expect.poll(() => explorer.getByTestId('search-results').getAttribute('data-query'), { timeout: 30_000 }).toBe('url_for');
        const cited = await explorer.getByTestId('search-result').evaluateAll((rows) => rows.map((r) => r.querySelector('.cite')?.textContent ?? ''));
        await tab.close();
        return { cited, items: requests.slice(at).filter((r) => r.includes('/flask-split/s/')).length };
      };
      const mended = await visit();
      expect(mended.items).toBeGreaterThan(0);
      expect(mended.cited).toEqual(laterCited);
      const after = await visit();
      expect(after).toEqual({ cited: mended.cited, items: 0 });
      // A new build on the host (Flask with the static lane, in the same folder): its root drops the older build's store.
      await page.context().route('**/flask-split/**', (route) => {
        const body = readFileSync(join(site, 'flask-split-static', new URL(route.request().url()).pathname.split('/flask-split/')[1] ?? ''));
        const range = /^bytes=(\d+)-(\d+)$/.exec(route.request().headers().range ?? '');
        if (!range) return route.fulfill({ status: 200, body, contentType: 'application/octet-stream' });
        const [from, to] = [Number(range[1]), Number(range[2])];
        const headers = { 'content-range': `bytes ${from}-${to}/${body.length}` };
        return route.fulfill({ status: 206, body: body.subarray(from, to + 1), headers, contentType: 'application/octet-stream' });
      });
      const rebuilt = await visit();
      expect(rebuilt.items).toBeGreaterThan(0);
      const now = await builds();
      expect(now).toHaveLength(1);
      expect(now[0]).not.toBe(build);
      await page.context().unroute('**/flask-split/**');
      await screenshot(page, 'static-site-split-offline');
      await page.setViewportSize({ width: 390, height: 844 });
      await screenshot(page, 'static-site-split-offline-narrow');
    });
  });

  test('a host that ignores Range requests fails a search by meaning by name, and the rest of the split bundle keeps answering', async () => {
    await withApp(browser(), `${url}split-meaning.html`, async ({ page }) => {
      // The host sends each pack whole, with 200, whatever range is asked.
      await page.route('**/flask-split-static/s/*.bin', async (route) => {
        if (!route.request().headers().range) return route.continue();
        const file = join(site, 'flask-split-static/s', new URL(route.request().url()).pathname.split('/').pop() ?? '');
        return route.fulfill({ status: 200, body: readFileSync(file), contentType: 'application/octet-stream' });
      });
      const explorer = page.getByTestId('explorer');
      await expect.poll(() => explorer.getAttribute('state'), { timeout: 60_000 }).toBe('ready');
      const list = explorer.getByTestId('search-results');
      const status = () => list.evaluate((l) => l.parentElement?.querySelector('.search-status')?.textContent ?? '');
      await expect.poll(status, { timeout: 30_000 }).toMatch(/Search failed: .* answered a Range request \(bytes=\d+-\d+\) with HTTP 200 and the whole file, so this host does not serve byte ranges/);
      // By words, a symbol's callers and a file: none of them reads a pack.
      const rest = await page.evaluate(async () => {
        const client = document.querySelector('fathom-explorer')?.client;
        if (!client) throw new Error('no client');
        const words = await client.search('url_for', { k: 5, mode: 'lexical' });
        const callers = await client.callers('flask.helpers.url_for');
        const file = await client.file('src/flask/helpers.py');
        return { hits: words.hits.length, callers: callers.length, file: file?.length ?? 0 };
      });
      expect(rest.hits).toBe(5);
      expect(rest.callers).toBeGreaterThan(0);
      expect(rest.file).toBeGreaterThan(1000);
    });
  });

  test('a site that did not copy the fetch worker\'s script still answers from a split bundle: the engine\'s worker fetches by itself', async () => {
    const cli = JSON.parse(spawnSync(fathomBinary(), ['search', join(site, 'flask-split-static/'), 'url_for', '--json', '-k', '5', '--mode', 'lexical'], { encoding: 'utf8' }).stdout);
    const expected = cli.hits.map((h: { symbol: string }) => h.symbol);
    const script = readdirSync(join(site, 'assets')).find((f) => f.startsWith('fetch-worker-'));
    if (!script) throw new Error('the build has no fetch worker');
    renameSync(join(site, 'assets', script), join(site, 'assets', `${script}.gone`));
    try {
      await withApp(browser(), `${url}split-meaning.html`, async ({ page, requests }) => {
        const explorer = page.getByTestId('explorer');
        await expect.poll(() => explorer.getAttribute('state'), { timeout: 60_000 }).toBe('ready');
        const answers = await page.evaluate(async () => {
          const client = document.querySelector('fathom-explorer')?.client;
          if (!client) throw new Error('no client');
          const words = await client.search('url_for', { k: 5, mode: 'lexical' });
          const meaning = await client.search('how are errors handled', { k: 5, mode: 'dense' });
          const again = await client.search('register a blueprint', { k: 5, mode: 'dense' });
          return { words: words.hits.map((h) => h.symbol), meaning: meaning.hits.length, lane: again.params.meaning, again: again.hits.length };
        });
        expect(answers.words).toEqual(expected);
        expect(answers).toMatchObject({ meaning: 5, lane: 'static', again: 5 });
        // The worker was started once the first question was answered, and its script was not there.
        expect(requests.filter((r) => r.includes(`/assets/${script}`))).toHaveLength(1);
      });
    } finally {
      renameSync(join(site, 'assets', `${script}.gone`), join(site, 'assets', script));
    }
  });

  test('the app opens a split bundle\'s folder picked from disk, reads each item from its file, and answers as the CLI does', async () => {
    const cli = JSON.parse(spawnSync(fathomBinary(), ['search', join(site, 'flask-split/'), 'url_for', '--json', '-k', '3'], { encoding: 'utf8' }).stdout);
    const expected = cli.hits.map((h: { file: string; start_line: number; end_line: number }) => `${h.file}:${h.start_line}-${h.end_line}`);
    await withApp(browser(), appUrl, async ({ page, requests }) => {
      await page.getByTestId('folder-input').setInputFiles(join(site, 'flask-split'));
      await expect.poll(() => page.locator('#status-line').textContent(), { timeout: 60_000 }).toBe('Opened flask-split, a split bundle read in parts (search by words) · ready');
      expect(await page.locator('#status-line').getAttribute('data-source')).toBe('split');
      await page.getByTestId('search-input').fill('url_for');
      await page.locator('[data-testid="search-results"][data-query="url_for"]').waitFor({ state: 'attached', timeout: 30_000 });
      const cited = await page.getByTestId('search-result').locator('.cite').allTextContents();
      const said = await page.locator('[data-testid="search-results"]').evaluate((l) => l.parentElement?.querySelector('.search-status')?.textContent ?? '');
      expect(said).toMatch(/ · lexical · /);
      expect(said).not.toContain('embeddings');
      // (The app groups hits by file: the CLI's best first, and its next two among them.)
      expect(cited[0]).toBe(expected[0]);
      for (const hit of expected) expect(cited).toContain(hit);
      // A file from its item on disk, and a symbol's callers.
      await page.getByTestId('search-result').first().click();
      await expect.poll(() => page.getByTestId('code-path').getAttribute('data-path'), { timeout: 30_000 }).toBe(cli.hits[0].file);
      await expect.poll(() => page.getByTestId('code-line-highlighted').count(), { timeout: 30_000 }).toBeGreaterThan(0);
      // What reads the whole index waits for one: no card, no tests for a change, no export to the library.
      expect(await page.getByTestId('card-button').isDisabled()).toBe(true);
      expect(await page.getByTestId('export-bundle').isDisabled()).toBe(true);
      // Nothing came over the network: the folder's files only.
      expect(requests.filter((r) => r.includes('flask-split'))).toEqual([]);
      await screenshot(page, 'app-split-folder');
      await page.setViewportSize({ width: 390, height: 844 });
      await screenshot(page, 'app-split-folder-narrow');
    });
  });

  test('the app opens a split bundle\'s folder with the static lane: packed rows and pieces are read as slices of their files', async () => {
    await withApp(browser(), appUrl, async ({ page, requests }) => {
      await page.getByTestId('folder-input').setInputFiles(join(site, 'flask-split-static'));
      await expect.poll(() => page.locator('#status-line').textContent(), { timeout: 60_000 }).toMatch(/^Opened flask-split-static, a split bundle read in parts.* · ready$/);
      await page.getByTestId('search-input').fill('how are errors handled');
      const list = page.locator('[data-testid="search-results"][data-query="how are errors handled"]');
      await list.waitFor({ state: 'attached', timeout: 30_000 });
      const said = await list.evaluate((l) => l.parentElement?.querySelector('.search-status')?.textContent ?? '');
      expect(said).toContain('the static lane');
      expect(said).not.toContain('failed');
      expect(await page.getByTestId('search-result').count()).toBeGreaterThan(0);
      // Nothing of the bundle came over the network: its files only, the packs sliced.
      expect(requests.filter((r) => r.includes('flask-split-static'))).toEqual([]);
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
