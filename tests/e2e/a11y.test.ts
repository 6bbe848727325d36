// Accessibility (issue 32, part 4): axe-core audits every view of the app,
// in both themes, in real headless Chromium, and finds no serious or
// critical violation. axe runs through the DevTools protocol, so the page's
// Content-Security-Policy stays as it ships.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { describe, expect, inject, test } from 'vitest';
import { openSidebar, searchFor, uploadZip, waitForState } from './app';
import { screenshot, sharedBrowser, withApp } from './browser';
import { zipFixture } from './fixtures';

const baseUrl = inject('baseUrl');
const browser = sharedBrowser();
const AXE = readFileSync(fileURLToPath(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url)), 'utf8');

interface Found {
  view: string;
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/** axe-core's serious and critical violations on the page as it is now. */
async function audit(page: Page, view: string): Promise<Found[]> {
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    type Check = { data?: { fgColor?: string; bgColor?: string; contrastRatio?: number } | null };
    type Violation = { id: string; impact: string | null; help: string; nodes: { target: unknown[]; any: Check[] }[] };
    const axe = (globalThis as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: Violation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    // Each element once, with its colours where the rule measured contrast.
    return result.violations.map((v) => ({ id: v.id, impact: v.impact ?? '', help: v.help, targets: v.nodes.slice(0, 12).map((n) => {
      const data = n.any[0]?.data;
      const colours = data?.contrastRatio ? ` ${data.fgColor} on ${data.bgColor}: ${data.contrastRatio}` : '';
      return `${n.target.join(' ')}${colours}`;
    }) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({ view, ...v }));
}

/** Writes what axe found beside the screenshots, for people to read. */
function report(name: string, found: Found[]): void {
  const dir = fileURLToPath(new URL('../.artifacts/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}${name}.json`, JSON.stringify(found, null, 1));
}

for (const scheme of ['light', 'dark'] as const) {
  describe(`axe-core, ${scheme} theme`, () => {
    test('every view: library, search, code, symbol panel, map, card, tests-for, query console', async () => {
      await withApp(browser(), baseUrl, async ({ page }) => {
        await page.emulateMedia({ colorScheme: scheme });
        const found: Found[] = [];
        found.push(...(await audit(page, 'start')));
        await uploadZip(page, 'mini-py-js.zip', zipFixture('mini-py-js'));
        await waitForState(page, 'ready');
        found.push(...(await audit(page, 'ready, sidebar folded')));
        await openSidebar(page);
        found.push(...(await audit(page, 'library and summary')));

        await searchFor(page, 'calculator total');
        found.push(...(await audit(page, 'search with results')));
        await page.getByTestId('search-result').first().click();
        await page.getByTestId('symbol-panel').locator('.symbol-head').waitFor();
        found.push(...(await audit(page, 'code and symbol panel')));

        await page.getByTestId('tab-map').click();
        await expect.poll(() => page.getByTestId('graph-view').getAttribute('data-layout'), { timeout: 20_000 }).toBe('done');
        found.push(...(await audit(page, 'map')));

        await page.getByTestId('card-button').click();
        await expect.poll(() => page.getByTestId('feature-card').getAttribute('data-state'), { timeout: 20_000 }).toBe('ready');
        found.push(...(await audit(page, 'feature card')));

        await page.getByTestId('tab-tests').click();
        await page.getByTestId('tests-for-symbols').fill('pkg.calc.compute_total');
        await page.getByTestId('tests-for-run').click();
        await expect.poll(() => page.getByTestId('tests-for-result').getAttribute('data-state'), { timeout: 20_000 }).not.toBe('running');
        found.push(...(await audit(page, 'tests for a change')));

        await page.getByTestId('query-console').locator('summary').click();
        await page.getByTestId('query-examples').selectOption({ label: 'Subclasses and their parents' });
        await expect.poll(() => page.getByTestId('query-count').textContent(), { timeout: 10_000 }).toMatch(/rows?/);
        found.push(...(await audit(page, 'query console')));
        await screenshot(page, `a11y-${scheme}`);
        report(`a11y-${scheme}`, found);
        expect(found, JSON.stringify(found, null, 1)).toEqual([]);
      });
    });

    test('the budget dialog', async () => {
      await withApp(browser(), `${baseUrl}?budget=0.01`, async ({ page }) => {
        await page.emulateMedia({ colorScheme: scheme });
        await uploadZip(page, 'mini-py-js.zip', zipFixture('mini-py-js'));
        await page.getByTestId('budget').waitFor();
        const found = await audit(page, 'budget dialog');
        await screenshot(page, `a11y-budget-${scheme}`);
        report(`a11y-budget-${scheme}`, found);
        expect(found, JSON.stringify(found, null, 1)).toEqual([]);
      });
    });
  });
}
