// The explorer beyond search: the repository map (sigma.js, WebGL) and the
// symbol panel's context, in real headless Chromium.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { describe, expect, inject, test } from 'vitest';
import { openSidebar, searchFor, uploadZip, waitForState } from './app';
import { openApp, screenshot, sharedBrowser, withApp as withAppIn, type AppPage } from './browser';
import { zipFiles, zipFixture } from './fixtures';

const baseUrl = inject('baseUrl');
const browser = sharedBrowser();

function withApp(run: (app: AppPage) => Promise<void>): Promise<void> {
  return withAppIn(browser(), baseUrl, run);
}

async function openMap(page: Page): Promise<void> {
  await page.getByTestId('tab-map').click();
  // The map opens on its architecture; the files and definitions are its next level.
  await page.getByTestId('map-level-files').click();
  const map = page.getByTestId('graph-view');
  await expect.poll(() => map.getAttribute('data-nodes')).toMatch(/^[1-9]\d*$/);
  await expect.poll(() => map.getAttribute('data-layout'), { timeout: 20_000 }).toBe('done');
}

function screenPosition(page: Page, key: string): Promise<{ x: number; y: number } | null> {
  return page.evaluate(
    (k) => (globalThis as unknown as { fathomMap: { view: { screenPosition(k: string): { x: number; y: number } | null } } })
      .fathomMap.view.screenPosition(k),
    key,
  );
}

describe('the map', () => {
  test('draws every file and definition with WebGL, opens code on a click, and focuses a symbol', async () => {
    await withApp(async ({ page }) => {
      await uploadZip(page, 'mini-py-js.zip', zipFixture('mini-py-js'));
      await waitForState(page, 'ready');
      await openMap(page);
      const map = page.getByTestId('graph-view');
      expect(Number(await map.getAttribute('data-nodes'))).toBeGreaterThan(40);
      expect(Number(await map.getAttribute('data-edges'))).toBeGreaterThan(10);
      // sigma draws into WebGL canvases inside the map.
      expect(await page.locator('[data-testid="map-canvas"] canvas').count()).toBeGreaterThan(1);
      await screenshot(page, 'map-overview');
      // sigma is given only what the zoom shows (directories and files), not
      // every node: it draws all it holds on every frame.
      const overview = Number(await map.getAttribute('data-shown'));
      expect(overview).toBeGreaterThan(0);
      expect(overview).toBeLessThan(Number(await map.getAttribute('data-nodes')));

      // Files are shown at the first zoom level; clicking one opens its code.
      const file = await screenPosition(page, 'pkg.calc');
      expect(file).not.toBeNull();
      await page.mouse.click(file!.x, file!.y);
      await expect.poll(() => page.getByTestId('code-path').getAttribute('data-path')).toBe('pkg/calc.py');
      expect(await page.getByTestId('code-view').isVisible()).toBe(true);

      // "Show in map" from the symbol panel focuses the symbol's neighbourhood.
      await searchFor(page, 'compute_total');
      await page.getByTestId('search-result').first().click();
      await page.getByTestId('show-in-map').click();
      await expect.poll(() => map.getAttribute('data-focus')).toMatch(/^[2-9]|\d\d+/);
      expect(await map.isVisible()).toBe(true);
      await page.waitForTimeout(600);
      await screenshot(page, 'map-focus');
      // Definitions out of the overview's level of detail are shown when focused.
      expect(await screenPosition(page, 'pkg.calc.compute_total')).not.toBeNull();

      // The map's text alternative: the selected symbol and its neighbours,
      // each a button that selects it in turn; the graph can be walked from
      // the keyboard, and the selection's code opened.
      const list = page.getByTestId('map-list');
      expect(await list.getByTestId('map-list-selected').textContent()).toBe('compute_total');
      const neighbours = await list.locator('li').evaluateAll((items) =>
        items.map((li) => ({ key: li.querySelector<HTMLElement>('[data-key]')?.dataset.key ?? '', edge: (li as HTMLElement).dataset.edge ?? '' })));
      expect(neighbours).toEqual(expect.arrayContaining([
        { key: 'pkg.calc.Calculator.__init__', edge: 'CALLS' },
        { key: 'pkg.calc', edge: 'CONTAINS' },
      ]));
      const step = list.locator('[data-key="pkg.calc.Calculator.__init__"]');
      await step.focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => list.getByTestId('map-list-selected').textContent()).toBe('__init__');
      expect(await map.getAttribute('data-selected')).toBe('pkg.calc.Calculator.__init__');
      // Enter moved the focus to the selection's own button: Enter again opens its code.
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByTestId('code-path').getAttribute('data-path')).toBe('pkg/calc.py');
      await page.getByTestId('tab-map').click();

      // Colour by directory and edge filters re-render without errors.
      await page.getByTestId('map-colour').selectOption('group');
      await page.locator('input[data-edge="CONTAINS"]').check();
      await page.getByTestId('map-clear').click();
      await expect.poll(() => map.getAttribute('data-focus')).toBe('0');
    });
  });
});

describe('the symbol panel', () => {
  test('shows signature, metrics, members, callers, callees and impact', async () => {
    await withApp(async ({ page }) => {
      await uploadZip(page, 'mini-py-js.zip', zipFixture('mini-py-js'));
      await waitForState(page, 'ready');
      await searchFor(page, 'Calculator');
      await page.getByTestId('search-result').first().click();
      const panel = page.getByTestId('symbol-panel');
      await expect.poll(() => panel.isVisible()).toBe(true);
      expect(await panel.locator('.symbol-name').getAttribute('data-qualified')).toBe('pkg.calc.Calculator');
      const members = await panel.getByTestId('members').locator('li').evaluateAll((items) =>
        items.map((li) => (li as HTMLElement).dataset.symbol));
      expect(members).toContain('pkg.calc.Calculator.add');
      expect(await panel.getByTestId('metrics').textContent()).toMatch(/fan-in \d+/);

      await panel.getByTestId('impact-button').click();
      const impact = panel.getByTestId('impact-list');
      await impact.waitFor();
      const dependents = await impact.locator('li').evaluateAll((items) => items.map((li) => (li as HTMLElement).dataset.symbol));
      expect(dependents.length).toBeGreaterThan(0);
      await screenshot(page, 'symbol-panel');
    });
  });
});

describe('declarations and generated code', () => {
  // A C library with its header, and a Go service with protoc's output checked in.
  const files = {
    'include/shape.h': '#ifndef SHAPE_H\n#define SHAPE_H\nstruct circle { double r; };\n/* The area of a circle. */\ndouble shape_area(const struct circle *c);\n#endif\n',
    'src/shape.c': '#include "shape.h"\n\ndouble shape_area(const struct circle *c) {\n  return 3.14159 * c->r * c->r;\n}\n',
    'src/main.c': '#include "shape.h"\n\nint main(void) {\n  struct circle c = { 2.0 };\n  return shape_area(&c) > 12.0;\n}\n',
    'go.mod': 'module example.com/greeter\n\ngo 1.21\n',
    'greeterpb/greeter.pb.go': '// Code generated by protoc-gen-go. DO NOT EDIT.\n// source: greeter.proto\n\npackage greeterpb\n\n// HelloRequest is the request of Greeter.SayHello.\ntype HelloRequest struct {\n\tName string\n}\n\nfunc (x *HelloRequest) GetName() string {\n\treturn x.Name\n}\n',
    'server/server.go': 'package server\n\nimport "example.com/greeter/greeterpb"\n\n// SayHello answers a HelloRequest with a greeting.\nfunc SayHello(req *greeterpb.HelloRequest) string {\n\treturn "hello " + req.GetName()\n}\n',
  };

  test('a definition lists where it is declared, a prototype where it is defined, and generated code is marked', async () => {
    await withApp(async ({ page }) => {
      await uploadZip(page, 'shapes.zip', zipFiles(files));
      await waitForState(page, 'ready');
      await searchFor(page, 'shape_area');
      const first = page.getByTestId('search-result').first();
      expect(await first.locator('.cite').textContent()).toBe('src/shape.c:3-5');
      await first.click();
      const panel = page.getByTestId('symbol-panel');
      await expect.poll(() => panel.isVisible()).toBe(true);
      const declared = panel.getByTestId('declarations');
      expect(await declared.locator('h4').textContent()).toBe('Declared at (1)');
      expect(await declared.locator('button .sym').getAttribute('title')).toContain('include/shape.h:5');
      // One click to the prototype, whose panel leads back to the body.
      await declared.locator('button').click();
      await expect.poll(() => panel.locator('.symbol-name').getAttribute('title')).toContain('include/shape.h:5');
      const defined = panel.getByTestId('declares');
      expect(await defined.locator('h4').textContent()).toBe('Defined at (1)');
      expect(await defined.locator('button .sym').getAttribute('title')).toContain('src/shape.c:3');
      for (const width of [420, 1280]) {
        await page.setViewportSize({ width, height: 860 });
        await screenshot(page, `declared-defined-${width}`);
      }

      // Generated code is indexed, found, and marked as generated.
      await searchFor(page, 'HelloRequest');
      const hit = page.getByTestId('search-result').first();
      expect(await hit.locator('.cite').textContent()).toMatch(/^greeterpb\/greeter\.pb\.go:/);
      expect(await hit.locator('[data-lane="role"]').textContent()).toBe('generated');
      await screenshot(page, 'generated-marked');
    });
  });
});

describe('search and navigation', () => {
  test('results are grouped by file with marked snippets, filters narrow them, and files can be listed', async () => {
    await withApp(async ({ page }) => {
      await uploadZip(page, 'mini-py-js.zip', zipFixture('mini-py-js'));
      await waitForState(page, 'ready');
      // Ctrl+K focuses the search box from anywhere.
      await page.locator('body').click({ position: { x: 5, y: 300 } });
      await page.keyboard.press('Control+k');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('search-input');

      await searchFor(page, 'total');
      const groups = await page.locator('.result-group').evaluateAll((items) => items.map((g) => (g as HTMLElement).dataset.file));
      expect(new Set(groups).size).toBe(groups.length);
      expect(groups.length).toBeGreaterThan(2);
      const marked = await page.locator('[data-testid="snippet"] mark').first().textContent();
      expect(marked?.toLowerCase()).toContain('total');
      await screenshot(page, 'search-grouped');

      const files = async () =>
        page.getByTestId('search-result').locator('.cite').evaluateAll((c) => c.map((e) => (e.textContent ?? '').split(':')[0]));
      await page.locator('[data-filter="language"]').selectOption('javascript');
      await expect.poll(async () => (await files()).every((f) => f?.endsWith('.js')), { timeout: 10_000 }).toBe(true);
      await page.locator('[data-filter="language"]').selectOption('');
      await page.locator('[data-filter="tests"]').selectOption('only');
      await expect.poll(async () => (await files()).every((f) => f?.startsWith('tests/')), { timeout: 10_000 }).toBe(true);
      await page.locator('[data-filter="tests"]').selectOption('include');
      await page.locator('[data-filter="path"]').fill('pkg/**');
      await expect.poll(async () => (await files()).every((f) => f?.startsWith('pkg/')), { timeout: 10_000 }).toBe(true);
      await page.locator('[data-filter="path"]').fill('');

      await page.getByTestId('files-view').check();
      await expect.poll(() => page.getByTestId('search-results').getAttribute('data-view'), { timeout: 10_000 }).toBe('files');
      await page.getByTestId('search-result').first().click();
      await expect.poll(() => page.getByTestId('code-path').getAttribute('data-path'), { timeout: 10_000 }).toMatch(/\.(py|js|ts|tsx)$/);
    });
  });

  test('a pasted bug report keeps its lines and ranks the file it is about first, as the CLI does', async () => {
    // The traceback of crates/fathom_engine/tests/locate.rs: its frames name
    // three files; the innermost, pricing.py, is where it raised.
    const report = [
      'Pricing a line with a whole-euro price crashes',
      '',
      '```',
      'Traceback (most recent call last):',
      '  File "/usr/lib/python3/site-packages/shop/cli.py", line 13, in main',
      '    print(order.total())',
      '  File "/usr/lib/python3/site-packages/shop/orders.py", line 19, in total',
      '    return sum(line_total(quantity, unit_price) for _, quantity, unit_price in self.lines)',
      '  File "/usr/lib/python3/site-packages/shop/pricing.py", line 6, in line_total',
      '    cents = round_cents(unit_price)',
      "ValueError: invalid literal for int() with base 10: ''",
      '```',
    ].join('\n');
    await withApp(async ({ page }) => {
      await uploadZip(page, 'bug-reports.zip', zipFixture('bug-reports'));
      await waitForState(page, 'ready');
      await page.getByTestId('files-view').check();
      const input = page.getByTestId('search-input');
      await input.focus();
      await input.evaluate((element, text) => {
        const data = new DataTransfer();
        data.setData('text/plain', text);
        element.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
      }, report);
      // The box shows the report on one line; the search read its lines.
      expect(await input.inputValue()).toContain('Traceback (most recent call last): File');
      const files = () => page.getByTestId('search-result').evaluateAll((items) => items.map((i) => (i as HTMLElement).dataset.file));
      await expect.poll(files, { timeout: 20_000 }).toEqual(expect.arrayContaining(['shop/pricing.py']));
      const ranked = await files();
      expect(ranked[0]).toBe('shop/pricing.py');
      expect(ranked.indexOf('shop/orders.py')).toBeLessThan(ranked.findIndex((f) => f?.startsWith('tests/')) >>> 0);
      await screenshot(page, 'search-pasted-report');
      // Typing over it searches what is typed, as before.
      await input.fill('vat rate');
      await expect.poll(() => page.getByTestId('search-results').getAttribute('data-query')).toBe('vat rate');
    });
  });

  test('Ctrl+P opens a file by part of its name, and the address links back to it', async () => {
    await withApp(async ({ page }) => {
      await uploadZip(page, 'mini-py-js.zip', zipFixture('mini-py-js'));
      await waitForState(page, 'ready');
      await page.keyboard.press('Control+p');
      await page.getByTestId('quick-open-input').fill('strings');
      await expect.poll(() => page.getByTestId('quick-open-list').locator('li').first().getAttribute('data-path')).toBe('pkg/util/strings.py');
      await screenshot(page, 'quick-open');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByTestId('code-path').getAttribute('data-path')).toBe('pkg/util/strings.py');
      const hash = await page.evaluate(() => location.hash);
      expect(hash).toContain('file=pkg%2Futil%2Fstrings.py');

      // A deep link to a symbol opens it (here, in the same tab after re-indexing).
      await page.evaluate(() => { location.hash = 'symbol=pkg.calc.compute_total&q=compute'; });
      await expect.poll(() => page.getByTestId('code-path').getAttribute('data-path'), { timeout: 10_000 }).toBe('pkg/calc.py');
      await expect.poll(() => page.locator('[data-testid="code-view"] .line.hl').first().getAttribute('data-line')).toBe('36');
      expect(await page.getByTestId('search-input').inputValue()).toBe('compute');
    });
  });
});

describe('the results as a graph', () => {
  test('ticking graph draws the best results and what links them, left to right; a node opens its code', async () => {
    await withApp(async ({ page }) => {
      await uploadZip(page, 'mini-py-js.zip', zipFixture('mini-py-js'));
      await waitForState(page, 'ready');
      await searchFor(page, 'calculator running total add');
      await page.getByTestId('graph-view-toggle').check();
      const root = page.getByTestId('results-graph');
      await expect.poll(() => root.getAttribute('data-state'), { timeout: 20_000 }).toBe('ready');
      expect(await page.getByTestId('search-results').isHidden()).toBe(true);
      const drawn = await root.locator('svg').evaluate((svg) => ({
        nodes: Object.fromEntries([...svg.querySelectorAll<SVGGElement>('.ag-node')].map((n) => [n.dataset.symbol ?? '', Number(n.dataset.x)])) as Record<string, number>,
        edges: [...svg.querySelectorAll<SVGGElement>('.ag-edge')].map((e) => ({ from: e.dataset.from ?? '', to: e.dataset.to ?? '', type: e.dataset.type ?? '' })),
      }));
      expect(Object.keys(drawn.nodes)).toEqual(expect.arrayContaining(['pkg.calc.Calculator', 'pkg.calc.Calculator.add']));
      expect(drawn.edges.some((e) => e.type === 'CALLS')).toBe(true);
      for (const e of drawn.edges.filter((e) => e.type === 'CALLS')) expect(drawn.nodes[e.from]!, `${e.from} -> ${e.to}`).toBeLessThan(drawn.nodes[e.to]!);
      // A new query redraws it.
      await searchFor(page, 'compute_total');
      await expect.poll(() => root.locator('.ag-node[data-symbol="pkg.calc.compute_total"]').count(), { timeout: 20_000 }).toBe(1);
      for (const width of [1280, 1920]) {
        await page.setViewportSize({ width, height: 900 });
        await screenshot(page, `results-graph-${width}`);
      }
      await root.locator('.ag-node[data-symbol="pkg.calc.compute_total"]').click();
      await expect.poll(() => page.getByTestId('code-path').getAttribute('data-path')).toBe('pkg/calc.py');
      // Unticked, the list is back.
      await page.getByTestId('graph-view-toggle').uncheck();
      expect(await root.isHidden()).toBe(true);
      expect(await page.getByTestId('search-results').isVisible()).toBe(true);
    });
  });
});

describe('the query console', () => {
  test('runs examples, shows errors in place, explains the schema, exports CSV and maps its rows', async () => {
    await withApp(async ({ page }) => {
      await uploadZip(page, 'mini-py-js.zip', zipFixture('mini-py-js'));
      await waitForState(page, 'ready');
      await page.getByTestId('query-console').locator('summary').click();
      await page.getByTestId('query-examples').selectOption({ label: 'Subclasses and their parents' });
      await expect.poll(() => page.getByTestId('query-count').textContent(), { timeout: 10_000 }).toMatch(/^[1-9]\d* rows?/);
      const cells = await page.locator('.query-table td').allTextContents();
      expect(cells).toContain('pkg.calc.ScientificCalculator');

      const download = page.waitForEvent('download');
      await page.getByTestId('export-csv').click();
      const file = await download;
      const csv = await new Promise<string>((resolve, reject) => {
        void file.createReadStream().then((stream) => {
          let text = '';
          stream.on('data', (chunk: Buffer) => { text += chunk.toString('utf8'); });
          stream.on('end', () => resolve(text));
          stream.on('error', reject);
        });
      });
      expect(csv.split('\r\n')[0]).toBe('c.qualified_name,p.qualified_name');
      expect(csv).toContain('pkg.calc.ScientificCalculator,pkg.calc.Calculator');

      await page.getByTestId('query-map').click();
      await expect.poll(() => page.getByTestId('graph-view').getAttribute('data-focus'), { timeout: 20_000 }).toMatch(/^[1-9]/);

      await page.getByTestId('query-schema-button').click();
      await expect.poll(() => page.getByTestId('query-schema').textContent(), { timeout: 10_000 }).toContain('HAS_METHOD');

      await page.getByTestId('query-input').fill('MATCH (c:CLASS\nRETURN c');
      await page.getByTestId('query-run').click();
      await expect.poll(() => page.getByTestId('query-caret').textContent(), { timeout: 10_000 }).toBe('RETURN c\n^');
      await screenshot(page, 'query-console');
    });
  });
});

describe('opening repositories', () => {
  test('a real .tar.gz sdist and a picked folder index like a zip; indexing can be cancelled', async () => {
    const corpora = process.env.FATHOM_CORPORA ?? `${process.env.HOME}/.cache/fathom/corpora`;
    const sdist = readFileSync(`${corpora}/flask-3.0.3.tar.gz`);
    await withApp(async ({ page }) => {
      await uploadZip(page, 'flask-3.0.3.tar.gz', new Uint8Array(sdist));
      await waitForState(page, 'ready');
      expect(Number(await page.getByTestId('summary-files').getAttribute('data-count'))).toBeGreaterThan(50);
      await searchFor(page, 'url_for');
      const cites = await page.getByTestId('search-result').locator('.cite').allTextContents();
      expect(cites.some((c) => c.startsWith('src/flask/helpers.py:'))).toBe(true);

      // A folder picked with the folder input: its files keep their paths.
      await page.getByTestId('folder-input').setInputFiles(fileURLToPath(new URL('../fixtures/mini-py-js', import.meta.url)));
      await expect.poll(() => page.locator('#status-line').textContent(), { timeout: 60_000 }).toBe('Indexed mini-py-js · ready');
      await searchFor(page, 'compute_total');
      expect(await page.getByTestId('search-result').first().locator('.cite').textContent()).toBe('pkg/calc.py:36-40');

      // Cancel stops a long indexing run; the next archive still indexes.
      // The run must outlast the click by far: 6,000 files once indexed
      // before a click on a busy machine, and the click then waited for a
      // button that was gone.
      const files: Record<string, string> = {};
      for (let i = 0; i < 40_000; i++) files[`big/m${i}.py`] = `def f${i}(x):\n    return g${i}(x) + ${i}\n`;
      await uploadZip(page, 'big.zip', zipFiles(files));
      await page.getByTestId('cancel-button').click({ timeout: 10_000 });
      await waitForState(page, 'idle');
      expect(await page.locator('#status-line').textContent()).toBe('Cancelled indexing big.zip');
      await uploadZip(page, 'mini-py-js.zip', zipFixture('mini-py-js'));
      await waitForState(page, 'ready');
    });
  });
});

describe('the feature card', () => {
  test('answers a question with symbols, their connections, tests and Markdown within the budget', async () => {
    await withApp(async ({ page }) => {
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
      await uploadZip(page, 'mini-py-js.zip', zipFixture('mini-py-js'));
      await waitForState(page, 'ready');
      await page.getByTestId('search-input').fill('calculator running total add');
      await page.getByTestId('card-button').click();
      const card = page.getByTestId('feature-card');
      await expect.poll(() => card.getAttribute('data-state'), { timeout: 20_000 }).toBe('ready');
      const symbols = await page.getByTestId('card-symbols').locator('[data-symbol]').evaluateAll((b) => b.map((e) => (e as HTMLElement).dataset.symbol));
      expect(symbols.some((s) => s?.startsWith('pkg.calc.Calculator'))).toBe(true);
      expect(await page.getByTestId('card-summary').textContent()).toContain('pkg/calc.py');
      // The summary's symbols are links that lead with their own names.
      const named = page.getByTestId('card-summary').locator('[data-symbol="pkg.calc.compute_total"]').first();
      expect(await named.locator('.sym-name').textContent()).toBe('compute_total');
      expect(await named.locator('.sym-container').textContent()).toBe('pkg.calc');
      expect(await page.getByTestId('card-tests').textContent()).toContain('test_calc');
      // The card's graph: its symbols, their tests and the real edges between
      // them, laid out left to right along each edge (a caller left of what
      // it calls, a test left of what it tests), each edge with its type and
      // confidence.
      const graph = page.getByTestId('card-graph');
      const drawn = await graph.evaluate((svg) => ({
        nodes: Object.fromEntries([...svg.querySelectorAll<SVGGElement>('.ag-node')].map((n) => [n.dataset.symbol ?? '', { x: Number(n.dataset.x), role: n.dataset.role ?? '' }])) as Record<string, { x: number; role: string }>,
        edges: [...svg.querySelectorAll<SVGGElement>('.ag-edge')].map((e) => ({
          from: e.dataset.from ?? '', to: e.dataset.to ?? '', type: e.dataset.type ?? '', label: e.querySelector('text')?.textContent ?? '',
        })),
      }));
      expect(drawn.edges.length).toBeGreaterThan(2);
      expect(drawn.edges.some((e) => e.type === 'CALLS')).toBe(true);
      expect(Object.values(drawn.nodes).some((n) => n.role === 'test')).toBe(true);
      for (const e of drawn.edges) {
        expect(e.label).toMatch(new RegExp(`^${e.type} [01]\\.\\d\\d$`));
        if (e.type === 'CALLS' || e.type === 'TESTS') expect(drawn.nodes[e.from]!.x, `${e.from} -> ${e.to}`).toBeLessThan(drawn.nodes[e.to]!.x);
      }
      await screenshot(page, 'feature-card');
      // A node opens its code, from the keyboard too.
      const node = graph.locator('.ag-node[data-symbol="pkg.calc.compute_total"]');
      await node.focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByTestId('code-path').getAttribute('data-path')).toBe('pkg/calc.py');
      await page.getByTestId('tab-card').click();

      await page.getByTestId('card-budget').selectOption('1000');
      await expect.poll(() => card.getAttribute('data-state'), { timeout: 20_000 }).toBe('ready');
      await page.getByTestId('card-copy').click();
      await expect.poll(() => card.getAttribute('data-copied')).toMatch(/^\d+$/);
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      expect(copied.startsWith('# calculator running total add')).toBe(true);
      expect(copied).toContain('```python');
      // About four bytes a token: a 1,000-token budget stays near 4 KB.
      expect(copied.length).toBeLessThan(4600);
    });
  });
});

describe('offline', () => {
  test('after one visit the app, the engine, the static table and the demo work with the network off; MiniLM is not fetched', async () => {
    const app = await openApp(browser(), `${baseUrl}?embed=off`, { serviceWorker: true });
    const { page } = app;
    try {
      await page.evaluate(async () => {
        await navigator.serviceWorker.ready;
      });
      // The install step cached everything on the precache list.
      await expect.poll(() => page.evaluate(async () => {
        const cache = await caches.open('fathom-v1');
        const keys = (await cache.keys()).map((r) => new URL(r.url).pathname);
        return ['minilm-l6-v2.static-v1.safetensors', 'minilm-l6-v2.tokenizer.json', 'fathom_wasm_bg', 'demo/fathom.zip'].every((f) => keys.some((k) => k.includes(f)));
      }), { timeout: 60_000 }).toBe(true);
      // A first visit does not download MiniLM's 45 MB: only running MiniLM does.
      expect(await page.evaluate(async () => {
        const cache = await caches.open('fathom-v1');
        return (await cache.keys()).filter((r) => r.url.includes('minilm-l6-v2.f16')).length;
      })).toBe(0);
      expect(app.requests.filter((url) => url.includes('minilm-l6-v2.f16'))).toEqual([]);
      await page.context().setOffline(true);
      await page.reload();
      await page.getByTestId('demo-button').click();
      await waitForState(page, 'ready');
      await searchFor(page, 'FathomClient');
      expect(await page.getByTestId('search-result').count()).toBeGreaterThan(0);
      expect(await page.getByTestId('privacy').textContent()).toContain('nothing leaves this tab');
      expect(app.foreignRequests()).toEqual([]);
      expect(app.pageErrors).toEqual([]);
    } finally {
      await page.context().setOffline(false);
      await app.close();
    }
  });
});

describe('code navigation and the library', () => {
  test('code is highlighted, a click on a call goes to its definition, and a reload reopens the index from the library', async () => {
    // One archive, byte for byte: the library is keyed by the archive's hash.
    const archive = zipFixture('mini-py-js');
    await withApp(async ({ page }) => {
      await uploadZip(page, 'mini-py-js.zip', archive);
      await waitForState(page, 'ready');
      await searchFor(page, 'compute_total');
      await page.getByTestId('search-result').first().click();
      const code = page.getByTestId('code-view');
      await expect.poll(() => code.locator('.code').getAttribute('data-highlighted'), { timeout: 10_000 }).toMatch(/^[1-9]/);
      expect(await code.locator('.line[data-line="36"] .tok-keyword').first().textContent()).toBe('def');
      await screenshot(page, 'code-highlighted');

      // `calc.add(value)` on line 39: clicking `add` opens Calculator.add.
      const addToken = code.locator('.line[data-line="39"]').getByText('add', { exact: true });
      await addToken.click();
      await expect.poll(() => code.getAttribute('data-definition'), { timeout: 10_000 }).toBe('pkg.calc.Calculator.add');
      await expect.poll(() => page.locator('[data-testid="code-view"] .line.hl').first().getAttribute('data-line')).toBe('14');

      // The index was kept in IndexedDB; after a reload it is listed and reopens without parsing.
      await expect.poll(() => page.getByTestId('recent').locator('li[data-name="mini-py-js.zip"]').count(), { timeout: 10_000 }).toBe(1);
      await page.reload();
      await page.getByTestId('recent').locator('li[data-name="mini-py-js.zip"] [data-testid="recent-open"]').click();
      await waitForState(page, 'ready');
      expect(await page.locator('#status-line').getAttribute('data-source')).toBe('library');
      await searchFor(page, 'compute_total');
      expect(await page.getByTestId('search-result').first().locator('.cite').textContent()).toBe('pkg/calc.py:36-40');

      // The same archive dropped again reopens from the library too.
      await page.evaluate(() => { document.querySelector('#status-line')?.removeAttribute('data-source'); });
      await uploadZip(page, 'mini-py-js.zip', archive);
      await expect.poll(() => page.locator('#status-line').getAttribute('data-source'), { timeout: 20_000 }).toBe('library');
      await openSidebar(page);
      await page.getByTestId('recent').locator('[data-testid="recent-delete"]').first().click();
      await expect.poll(() => page.getByTestId('recent').locator('li[data-name]').count()).toBe(0);
    });
  });
});

describe('security', () => {
  test('HTML and script payloads in names, docstrings and code are shown as text and never run', async () => {
    const payload = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
    const archive = zipFiles({
      'evil/<b>bold</b>.py': `"""${payload}"""\n\ndef render_payload():\n    """${payload}"""\n    return "${payload.replaceAll('"', "'")}"\n`,
      'evil/page.js': `// ${payload}\nexport function injectPayload() { return '${payload.replaceAll("'", '"')}'; }\n`,
    });
    await withApp(async ({ page }) => {
      const dialogs: string[] = [];
      page.on('dialog', (d) => { dialogs.push(d.message()); void d.dismiss(); });
      await uploadZip(page, 'evil.zip', archive);
      await waitForState(page, 'ready');
      await searchFor(page, 'render payload');
      await page.getByTestId('search-result').first().click();
      // The archive's one folder is stripped: the file is `<b>bold</b>.py`, shown as text.
      await expect.poll(() => page.getByTestId('code-path').getAttribute('data-path'), { timeout: 10_000 }).toBe('<b>bold</b>.py');
      expect(await page.getByTestId('code-path').locator('b').count()).toBe(0);
      expect(await page.getByTestId('code-view').locator('.code').textContent()).toContain('<script>');
      await page.getByTestId('search-input').fill('payload');
      await page.getByTestId('card-button').click();
      await expect.poll(() => page.getByTestId('feature-card').getAttribute('data-state'), { timeout: 20_000 }).toBe('ready');
      await page.getByTestId('tab-map').click();
      await expect.poll(() => page.getByTestId('graph-view').getAttribute('data-nodes')).toMatch(/^[1-9]/);
      expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(await page.locator('img[src="x"], [data-testid="code-view"] script').count()).toBe(0);
      expect(dialogs).toEqual([]);
    });
  });
});

describe('manners', () => {
  test('dark and light themes, a name for every control, and the keyboard alone finds code and its references', async () => {
    await withApp(async ({ page }) => {
      await uploadZip(page, 'mini-py-js.zip', zipFixture('mini-py-js'));
      await waitForState(page, 'ready');
      const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const toggle = page.getByTestId('theme-toggle');
      // system → dark → light; the choice survives a reload.
      await toggle.click();
      expect(await toggle.getAttribute('data-theme')).toBe('dark');
      expect(await background()).toBe('rgb(30, 30, 30)');
      await toggle.click();
      expect(await toggle.getAttribute('data-theme')).toBe('light');
      expect(await background()).toBe('rgb(255, 255, 255)');
      await page.reload();
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
      await uploadZip(page, 'mini-py-js.zip', zipFixture('mini-py-js'));
      await waitForState(page, 'ready');

      // Every control a person can reach has an accessible name.
      const unnamed = await page.evaluate(() =>
        [...document.querySelectorAll<HTMLElement>('button, input, select, textarea, [tabindex]')]
          .filter((el) => el.offsetParent !== null || el.closest('.button'))
          .filter((el) => {
            const labelled = el as HTMLElement & { labels?: NodeListOf<HTMLLabelElement> | null };
            return !(el.getAttribute('aria-label') || el.getAttribute('title') || el.textContent?.trim() || (labelled.labels?.length ?? 0) > 0);
          })
          .map((el) => el.outerHTML.slice(0, 120)));
      expect(unnamed).toEqual([]);

      // Keyboard only: Ctrl+K, a query, ArrowDown and Enter open the code; Shift+F12 lists references.
      await page.keyboard.press('Control+k');
      await page.keyboard.type('Calculator.add');
      await page.locator('[data-testid="search-results"][data-query="Calculator.add"]').waitFor({ state: 'attached' });
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByTestId('code-path').getAttribute('data-path')).toBe('pkg/calc.py');
      await expect.poll(() => page.getByTestId('symbol-panel').locator('.symbol-name').getAttribute('data-qualified')).toBe('pkg.calc.Calculator.add');
      await page.keyboard.press('Shift+F12');
      const references = page.getByTestId('reference');
      await expect.poll(() => references.count(), { timeout: 10_000 }).toBeGreaterThan(0);
      expect(await references.evaluateAll((items) => items.map((li) => (li as HTMLElement).dataset.from))).toContain('pkg.calc.compute_total');
      // A reference opens its line.
      await page.getByTestId('reference').filter({ hasText: 'compute_total' }).locator('button').press('Enter');
      await expect.poll(() => page.getByTestId('code-line-highlighted').first().getAttribute('data-line')).toBe('39');
      await screenshot(page, 'light-references');

      // The map takes keys once focused: + zooms in.
      await page.getByTestId('tab-map').click();
      await openMap(page);
      const ratio = () => page.evaluate(() =>
        (globalThis as unknown as { fathomMap: { view: { renderer: { getCamera(): { ratio: number } } } } }).fathomMap.view.renderer.getCamera().ratio);
      const before = await ratio();
      await page.getByTestId('map-canvas').focus();
      await page.keyboard.press('+');
      await expect.poll(ratio).toBeLessThan(before);
    });
  });
});
