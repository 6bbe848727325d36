// The "Tests for a change" panel on a real project, the Flask 3.0.3 sdist:
// a unified diff, a description, a feature that does not exist (abstention)
// and a malformed diff, each answered in the page with its evidence, and the
// recommended test opened in the code view.
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, inject, test } from 'vitest';
import { highlighted, waitForState } from './app';
import { screenshot, sharedBrowser, withApp } from './browser';

const baseUrl = inject('baseUrl');
const corpora = process.env.FATHOM_CORPORA ?? `${process.env.HOME}/.cache/fathom/corpora`;
const SDIST = 'flask-3.0.3.tar.gz';
const HELPERS = 'src/flask/helpers.py';
const browser = sharedBrowser({ webgpu: false });

/**
 * A one-line change inside `get_flashed_messages`, as `git diff` writes it:
 * three lines of context on each side, old line numbers in the hunk header.
 */
function flashDiff(): string {
  const lines = readFileSync(`${corpora}/flask-3.0.3/${HELPERS}`, 'utf8').split('\n');
  const at = lines.findIndex((l) => l.includes('flashes = session.pop("_flashes") if "_flashes" in session else []'));
  expect(at).toBeGreaterThan(0);
  const before = lines.slice(at - 3, at).map((l) => ` ${l}`);
  const after = lines.slice(at + 1, at + 4).map((l) => ` ${l}`);
  const old = lines[at] ?? '';
  return [
    `diff --git a/${HELPERS} b/${HELPERS}`,
    `--- a/${HELPERS}`,
    `+++ b/${HELPERS}`,
    `@@ -${at - 2},7 +${at - 2},7 @@ def get_flashed_messages(`,
    ...before,
    `-${old}`,
    `+${old.replace('else []', 'else list()')}`,
    ...after,
    '',
  ].join('\n');
}

async function ask(page: Page, input: string, symbols = ''): Promise<string> {
  await page.getByTestId('tests-for-input').fill(input);
  await page.getByTestId('tests-for-symbols').fill(symbols);
  await page.getByTestId('tests-for-run').click();
  const result = page.getByTestId('tests-for-result');
  await expect.poll(() => result.getAttribute('data-state'), { timeout: 30_000 }).not.toBe('running');
  return (await result.getAttribute('data-state')) ?? '';
}

/** The recommended tests, best first, each with the edge types of its evidence trail. */
function recommended(page: Page): Promise<{ symbol: string; cite: string; hops: string[] }[]> {
  return page.getByTestId('recommended-test').evaluateAll((items) =>
    items.map((li) => ({
      symbol: (li as HTMLElement).dataset.symbol ?? '',
      cite: li.querySelector('.cite')?.textContent ?? '',
      hops: [...li.querySelectorAll<HTMLElement>('.hop')].map((hop) => hop.dataset.type ?? ''),
    })),
  );
}

describe('tests for a change, on Flask 3.0.3', () => {
  test('a diff, a description, an unknown feature and a malformed diff, with the evidence clickable to the code', async () => {
    await withApp(browser(), baseUrl, async ({ page }) => {
      const sdist = readFileSync(`${corpora}/${SDIST}`);
      await page.getByTestId('archive-input').setInputFiles({ name: SDIST, mimeType: 'application/gzip', buffer: sdist });
      await waitForState(page, 'ready');
      await page.getByTestId('tab-tests').click();

      // (a) A unified diff: the changed line is read as get_flashed_messages,
      // and the flashing tests come first, each with the TESTS edge as evidence.
      expect(await ask(page, flashDiff())).toBe('ready');
      const changed = await page.getByTestId('tests-for-changed').locator('[data-symbol]').evaluateAll((links) => links.map((l) => (l as HTMLElement).dataset.symbol ?? ''));
      expect(changed).toEqual(['flask.helpers.get_flashed_messages']);
      const tests = await recommended(page);
      expect(tests.length).toBeGreaterThanOrEqual(3);
      expect(tests.slice(0, 3).every((t) => /^test_basic\..*flash/.test(t.symbol))).toBe(true);
      // Tests the graph links carry their path; every one is a test in a test file.
      expect(tests.filter((t) => t.hops.length > 0).every((t) => t.cite.startsWith('tests/test_basic.py:'))).toBe(true);
      expect(tests.every((t) => /(^|\/)tests\//.test(t.cite))).toBe(true);
      expect(tests[0]?.hops.at(-1)).toBe('TESTS');
      // The evidence as one graph: tests left of what they reach, the change on the right.
      const graph = await page.getByTestId('tests-for-graph').evaluate((svg) => ({
        nodes: Object.fromEntries([...svg.querySelectorAll<SVGGElement>('.ag-node')].map((n) => [n.dataset.symbol ?? '', { x: Number(n.dataset.x), role: n.dataset.role ?? '' }])) as Record<string, { x: number; role: string }>,
        edges: [...svg.querySelectorAll<SVGGElement>('.ag-edge')].map((e) => ({ from: e.dataset.from ?? '', to: e.dataset.to ?? '', type: e.dataset.type ?? '' })),
      }));
      expect(graph.nodes['flask.helpers.get_flashed_messages']?.role).toBe('changed');
      expect(graph.nodes[tests[0]!.symbol]?.role).toBe('test');
      expect(graph.edges.filter((e) => e.type === 'TESTS').length).toBeGreaterThan(0);
      for (const e of graph.edges) expect(graph.nodes[e.from]!.x, `${e.from} -> ${e.to}`).toBeLessThan(graph.nodes[e.to]!.x);
      // The impact: what depends on the changed function, by package.
      const impact = page.getByTestId('tests-for-impact');
      expect(await impact.locator('summary code').allTextContents()).toEqual(expect.arrayContaining(['src/flask', 'tests']));
      await screenshot(page, 'tests-for-diff');

      // The evidence is clickable to the code: the test opens at its line.
      const first = tests[0];
      if (!first) throw new Error('no recommended test');
      await page.getByTestId('recommended-test').first().locator('header [data-symbol]').click();
      const code = page.getByTestId('code-view');
      await expect.poll(() => code.getByTestId('code-path').getAttribute('data-path')).toBe('tests/test_basic.py');
      const line = Number(first.cite.split(':').at(-1));
      await expect.poll(() => code.getByTestId('code-line-highlighted').first().getAttribute('data-line')).toBe(String(line));
      // The span starts at the test's decorators, if any, and holds its def.
      expect((await highlighted(page)).text).toContain(`def ${first.symbol.split('.').at(-1)}(`);

      // (b) A description in the repository's words.
      await page.getByTestId('tab-tests').click();
      expect(await ask(page, 'flashed messages should keep their categories when read back')).toBe('ready');
      const described = await recommended(page);
      expect(described.slice(0, 5).some((t) => t.symbol.includes('flash'))).toBe(true);

      // (c) A symbol by name, with no text.
      expect(await ask(page, '', 'flask.helpers.get_flashed_messages')).toBe('ready');
      expect((await recommended(page))[0]?.symbol).toMatch(/flash/);

      // Abstention: a feature Flask does not have gets no guesses.
      expect(await ask(page, 'render the quarterly invoice as a PDF with a barcode')).toBe('abstained');
      expect(await page.getByTestId('recommended-test').count()).toBe(0);
      await expect.poll(() => page.getByTestId('tests-for-abstain').isVisible()).toBe(true);
      const notes = (await page.getByTestId('tests-for-notes').textContent()) ?? '';
      expect(notes).toMatch(/invoice|barcode/);
      await screenshot(page, 'tests-for-abstain');

      // A malformed diff gets its cause in place; the panel keeps working.
      expect(await ask(page, `diff --git a/${HELPERS} b/${HELPERS}\n--- a/${HELPERS}\n+++ b/${HELPERS}\n`)).toBe('failed');
      expect(await page.getByTestId('tests-for-error').textContent()).toContain('no hunk');
      expect(await ask(page, flashDiff())).toBe('ready');
    });
  }, 180_000);
});
