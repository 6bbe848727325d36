// Scale in the tab: a repository over the memory budget is caught before
// anything is indexed and a chosen subset is indexed instead; Django is
// parsed by the pool of parse workers and gives the CLI's answers.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, test } from 'vitest';
import type { FathomClient, Plan } from '../../web/src/index';
import { citationOf, openSidebar, searchFor, uploadZip, waitForState } from './app';
import { fathom } from './cli';
import { screenshot, sharedBrowser, withApp } from './browser';
import { zipFiles } from './fixtures';

const baseUrl = inject('baseUrl');
const browser = sharedBrowser({ webgpu: false });
const corpora = process.env.FATHOM_CORPORA ?? `${process.env.HOME}/.cache/fathom/corpora`;
const FLASK = 'flask-3.0.3.tar.gz';
const DJANGO = 'Django-5.0.6';
const MB = 1 << 20;
const QUERY =
  "MATCH (c:CLASS {name: 'QuerySet'})-[:HAS_METHOD]->(m:METHOD) MATCH (caller)-[:CALLS]->(m) RETURN m.name, count(caller) AS n ORDER BY n DESC, m.name LIMIT 15";
/** Every edge of the graph, counted by type. */
const EDGES = 'MATCH (a)-[r]->(b) RETURN type(r) AS t, count(r) AS n ORDER BY t';

describe('scale', () => {
  test('an archive over the memory budget is caught before indexing, and a chosen subset is indexed', async () => {
    const sdist = readFileSync(`${corpora}/${FLASK}`);
    // The plan, from a page with the default budget: what the engine says Flask needs.
    let plan: Plan | undefined;
    await withApp(browser(), baseUrl, async ({ page }) => {
      plan = await page.evaluate(
        (bytes) => (globalThis as unknown as { fathom: FathomClient }).fathom.plan(new Blob([new Uint8Array(bytes)]), 'flask.tar.gz'),
        [...sdist],
      );
    });
    if (!plan) throw new Error('no plan');
    const folders = plan.survey.folders.map((f, i) => ({ ...f, heap: plan?.folder_heap_bytes[i] ?? 0 }));
    const src = folders.find((f) => f.path === 'src');
    const tests = folders.find((f) => f.path === 'tests');
    if (!src || !tests) throw new Error(`Flask's folders: ${JSON.stringify(folders)}`);
    // A budget that holds src/ (and the rest but tests/), not the whole archive.
    const rootHeap = folders.filter((f) => f.path === '').reduce((n, f) => n + f.heap, 0);
    const budgetMb = Math.ceil((plan.estimated_heap_bytes - tests.heap / 2) / MB);
    expect(budgetMb * MB).toBeLessThan(plan.estimated_heap_bytes);
    expect(budgetMb * MB).toBeGreaterThan(plan.base_heap_bytes + rootHeap + src.heap);

    await withApp(browser(), `${baseUrl}?budget=${budgetMb}`, async ({ page }) => {
      // Cancelling, at the panel or at the drop zone, changes nothing.
      const panel = page.getByTestId('budget');
      for (const cancel of ['budget-cancel', 'cancel-button']) {
        await uploadZip(page, FLASK, sdist);
        await panel.waitFor();
        expect(await page.getByTestId('budget-message').textContent()).toMatch(
          new RegExp(`${FLASK.replace(/\./g, '\\.')} holds ${plan?.survey.files} files .* more than this tab's budget of ${budgetMb} MB`),
        );
        await page.getByTestId(cancel).click();
        await waitForState(page, 'idle');
        expect(await panel.isHidden()).toBe(true);
        expect(await page.locator('#status-line').textContent()).toContain("over this tab's memory budget");
      }

      // Choosing: the largest folders that fit are offered checked; tests/ does not fit beside them.
      await uploadZip(page, FLASK, sdist);
      await panel.waitFor();
      const box = (path: string) => page.locator(`[data-testid="budget-folder"][data-path="${path}"]`);
      expect(await box('src').isChecked()).toBe(true);
      expect(await box('tests').isChecked()).toBe(false);
      const start = page.getByTestId('budget-index');
      expect(await start.isEnabled()).toBe(true);
      await box('tests').check();
      expect(await page.getByTestId('budget-total').getAttribute('data-over')).toBe('true');
      expect(await start.isDisabled()).toBe(true);
      await box('tests').uncheck();
      expect(await start.isEnabled()).toBe(true);
      await screenshot(page, 'budget');
      await start.click();
      await waitForState(page, 'ready');

      const files = await page.evaluate(() => (globalThis as unknown as { fathom: FathomClient }).fathom.files());
      expect(files.some((f) => f.path.startsWith('src/flask/'))).toBe(true);
      expect(files.filter((f) => f.path.startsWith('tests/'))).toEqual([]);
      expect(await page.getByTestId('summary').textContent()).toMatch(/Excluded by a pattern \(\d+\)/);
    });
  });

  test('files denser than the plan estimates are measured while parsing, and the rest left out (issue 51)', async () => {
    // 40 modules of one-line functions, 200 KB each: several times the heap
    // per byte that ordinary code takes. The plan's estimate fits the
    // budget, so no choice is offered; the index worker's heap is measured
    // while parsing, and past half the budget the rest is left out.
    const files: Record<string, string> = {};
    for (let module = 0; module < 40; module += 1) {
      const lines: string[] = [];
      for (let j = 0, size = 0; size < 200_000; j += 1) {
        const line = `def f_${module}_${j}(value): return helper_${j}(value) + ${module}\n`;
        lines.push(line);
        size += line.length;
      }
      files[`dense/module_${String(module).padStart(2, '0')}.py`] = lines.join('');
    }
    files['needle/ordinary.py'] = 'def find_the_ordinary_file():\n    return 42\n';
    const archive = zipFiles(files);
    const budgetMb = 96;
    await withApp(browser(), `${baseUrl}?budget=${budgetMb}`, async ({ page }) => {
      const plan = await page.evaluate(
        (bytes) => (globalThis as unknown as { fathom: FathomClient }).fathom.plan(new Blob([new Uint8Array(bytes)]), 'dense.zip'),
        [...archive],
      );
      expect(plan.estimated_heap_bytes).toBeLessThan(budgetMb * MB);
      await uploadZip(page, 'dense.zip', archive);
      await waitForState(page, 'ready', 120_000);
      expect(await page.getByTestId('budget').isHidden()).toBe(true);
      const indexed = await page.evaluate(() => (globalThis as unknown as { fathom: FathomClient }).fathom.files());
      expect(indexed.length).toBeGreaterThan(1);
      expect(indexed.length).toBeLessThan(41);
      expect(indexed.some((f) => f.path === 'needle/ordinary.py')).toBe(true);
      await openSidebar(page);
      const limit = page.locator('[data-testid="skipped"] [data-reason="limit"]');
      expect(Number(await limit.getAttribute('data-count'))).toBe(41 - indexed.length);
      await searchFor(page, 'find_the_ordinary_file');
      expect((await citationOf(page, 0)).file).toBe('needle/ordinary.py');
    });
  });

  test('a file too dense for the tab is left out alone, named with its density, and the ordinary files beside it kept (issue 61)', async () => {
    // 24 modules of `x = 1` lines, 300 KB each (a definition every 8
    // bytes), in one folder, and ordinary modules in others. The index
    // worker bounds what every stage after parsing will add from each
    // parse's counts; past the tab's budget the densest parse goes first,
    // with its density as the reason, and no ordinary module is lost.
    const files: Record<string, string> = {};
    for (let module = 0; module < 24; module += 1) {
      const lines: string[] = [];
      for (let j = 0, size = 0; size < 300_000; j += 1) {
        const line = `x${j} = ${module}\n`;
        lines.push(line);
        size += line.length;
      }
      files[`generated/table_${String(module).padStart(2, '0')}.py`] = lines.join('');
    }
    for (let module = 0; module < 12; module += 1) {
      files[`app/service_${module}.py`] =
        `"""Service ${module}."""\n\n\ndef handle_request_${module}(request):\n    """Answers one request."""\n    return request.body\n`;
    }
    files['needle/ordinary.py'] = 'def find_the_ordinary_file():\n    return 42\n';
    const archive = zipFiles(files);
    await withApp(browser(), `${baseUrl}?budget=96`, async ({ page }) => {
      await uploadZip(page, 'dense-definitions.zip', archive);
      await waitForState(page, 'ready', 180_000);
      const indexed = await page.evaluate(() => (globalThis as unknown as { fathom: FathomClient }).fathom.files());
      const paths = new Set(indexed.map((f) => f.path));
      expect(paths.has('needle/ordinary.py')).toBe(true);
      for (let module = 0; module < 12; module += 1) expect(paths.has(`app/service_${module}.py`)).toBe(true);
      const dense = indexed.filter((f) => f.path.startsWith('generated/')).length;
      expect(dense).toBeLessThan(24);
      await openSidebar(page);
      const limit = page.locator('[data-testid="skipped"] [data-reason="limit"]');
      expect(Number(await limit.getAttribute('data-count'))).toBe(24 - dense);
      await limit.locator('summary').click();
      // The list is drawn as it opens: wait for its rows, then read them.
      await expect.poll(() => limit.locator('li .detail').count(), { timeout: 10_000 }).toBe(24 - dense);
      const details = await limit.locator('li .detail').allTextContents();
      // Each left out is named with what makes it costly, or as waiting
      // beside such a file.
      expect(details.some((d) => /\d[\d,]* definitions in [\d.]+ KiB \(one every \d+ bytes\)/.test(d))).toBe(true);
      for (const detail of details) expect(detail).toMatch(/definitions in|beside it/);
      await searchFor(page, 'find_the_ordinary_file');
      expect((await citationOf(page, 0)).file).toBe('needle/ordinary.py');
      await screenshot(page, 'scale-too-dense');
    });
  });

  test('Django is parsed by the pool of parse workers, in one tab, and answers as the CLI does', async () => {
    const sdist = readFileSync(`${corpora}/${DJANGO}.tar.gz`);
    await withApp(browser(), baseUrl, async ({ page }) => {
      // The app starts its parse workers as it opens, before any archive.
      const cores = await page.evaluate(() => navigator.hardwareConcurrency);
      const poolSize = cores > 1 ? Math.min(cores, 8) : 0;
      const parseWorkers = (): number => page.workers().filter((w) => w.url().includes('parse-worker')).length;
      await expect.poll(parseWorkers, { timeout: 30_000 }).toBe(poolSize);

      // Cancel while the parse workers are at work stops them all, and
      // fresh ones start; the same archive then indexes from the start.
      await uploadZip(page, `${DJANGO}.tar.gz`, sdist);
      await page.locator('[data-testid="progress-parse"][data-status="active"]').waitFor({ timeout: 120_000 });
      await page.getByTestId('cancel-button').click({ timeout: 10_000 });
      await waitForState(page, 'idle', 30_000);
      expect(await page.locator('#status-line').textContent()).toBe(`Cancelled indexing ${DJANGO}.tar.gz`);
      await expect.poll(parseWorkers, { timeout: 30_000 }).toBe(poolSize);

      await uploadZip(page, `${DJANGO}.tar.gz`, sdist);
      expect(await page.getByTestId('budget').isHidden()).toBe(true);
      await waitForState(page, 'ready', 300_000);
      const { memory, summary, rows, edges } = await page.evaluate(async ({ query, edges }) => {
        const client = (globalThis as unknown as { fathom: FathomClient }).fathom;
        return {
          memory: await client.memory(),
          summary: await client.files().then((f) => f.length),
          rows: (await client.query(query)).rows,
          edges: (await client.query(edges)).rows,
        };
      }, { query: QUERY, edges: EDGES });
      expect(memory.parse.workers).toBe(poolSize);
      // Asking for them again starts no more.
      expect(await page.evaluate(() => (globalThis as unknown as { fathom: FathomClient }).fathom.prepareIndexing()))
        .toBe(memory.parse.workers);
      expect(parseWorkers()).toBe(memory.parse.workers);
      expect(memory.parse.failedShares).toBe(0);
      // The archive's first files were parsed while the rest was read.
      if (memory.parse.workers > 1) expect(memory.parse.sampledFiles).toBeGreaterThan(50);
      expect(memory.parse.parseHeapBytes.length).toBe(memory.parse.workers);
      expect(memory.parse.parseHeapBytes.every((b) => b > 0)).toBe(true);
      // Every worker took a share of the parsing, and says how long it spent.
      expect(memory.parse.parseBusyMs.length).toBe(memory.parse.workers);
      expect(memory.parse.parseBusyMs.every((ms) => ms > 0)).toBe(true);

      // The CLI indexes the unpacked sdist once, into a bundle, and answers from it.
      const bundle = join(mkdtempSync(join(tmpdir(), 'fathom-django-')), 'django.fathom');
      const stats = JSON.parse(fathom(['index', `${corpora}/${DJANGO}`, '--no-embed', '-o', bundle, '--json']));
      const native = JSON.parse(fathom(['query', bundle, QUERY, '--json']));
      expect(rows.length).toBe(15);
      expect(rows).toEqual(native.rows);
      const nativeEdges = JSON.parse(fathom(['query', bundle, EDGES, '--json']));
      expect(edges.length).toBeGreaterThan(8);
      expect(edges).toEqual(nativeEdges.rows);
      expect(summary).toBe(stats.files);
    });
  }, 600_000);
});
