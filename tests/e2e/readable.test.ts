// Results that say what they found (issue 32, part 1): every place that
// names a symbol leads with its own name and kind, shows its container in a
// lighter weight and its path below, shortened in the middle, and keeps the
// full name on hover. Checked on a Java project with deep packages at two
// desktop widths, in real headless Chromium.
import type { Locator, Page } from 'playwright-core';
import { describe, expect, inject, test } from 'vitest';
import { searchFor, uploadZip, waitForState } from './app';
import { screenshot, sharedBrowser, withApp as withAppIn, type AppPage } from './browser';
import { zipFixture } from './fixtures';

const baseUrl = inject('baseUrl');
const browser = sharedBrowser();

function withApp(run: (app: AppPage) => Promise<void>): Promise<void> {
  return withAppIn(browser(), baseUrl, run);
}

/** Whether an element shows all of its text: not cut by its own box nor by any scrolling or clipping ancestor. */
function wholeText(locator: Locator): Promise<boolean> {
  return locator.evaluate((element) => {
    if (element.scrollWidth > element.clientWidth + 1) return false;
    const box = element.getBoundingClientRect();
    if (box.width === 0) return false;
    for (let up = element.parentElement; up; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (style.overflowX === 'visible') continue;
      const clip = up.getBoundingClientRect();
      if (box.left < clip.left - 1 || box.right > clip.right + 1) return false;
    }
    return true;
  });
}

async function checkLabel(label: Locator, name: string, qualified: string): Promise<void> {
  await expect.poll(() => label.locator('.sym-name').first().textContent()).toBe(name);
  expect(await wholeText(label.locator('.sym-name').first())).toBe(true);
  expect(await label.getAttribute('title')).toContain(qualified);
}

for (const width of [1280, 1920]) {
  describe(`names at ${width} px`, () => {
    test('search results, the symbol panel, its callers and callees lead with the name', async () => {
      await withApp(async ({ page }) => {
        await page.setViewportSize({ width, height: 900 });
        await uploadZip(page, 'lang-java-spring.zip', zipFixture('lang-java-spring'));
        await waitForState(page, 'ready');
        await searchFor(page, 'findByUsername');
        const first = page.getByTestId('search-result').first();
        await expect.poll(() => first.getAttribute('data-symbol')).toMatch(/findByUsername$/);
        const qualified = (await first.getAttribute('data-symbol'))!;
        const label = first.locator('.sym');
        await checkLabel(label, 'findByUsername', qualified);
        expect(await first.locator('.badge').getAttribute('title')).toBe('method');
        // The container is the qualified name less the name, lighter.
        const container = label.locator('.sym-container');
        expect(qualified).toContain((await container.getAttribute('data-full'))!);
        expect(await weight(container)).toBeLessThan(await weight(label.locator('.sym-name')));
        // The path sits below the name, shortened in the middle where it must be.
        const path = first.locator('.sym-path');
        expect(await path.getAttribute('data-full')).toMatch(/^src\/main\/java\/com\/acme\/users\/repo\/UserRepository\.java:\d+/);
        expect(await below(path, label.locator('.sym-name'))).toBe(true);
        await screenshot(page, `names-results-${width}`);

        await first.click();
        const head = page.getByTestId('symbol-panel').locator('.symbol-head .sym');
        expect(await page.getByTestId('symbol-panel').locator('.symbol-kind').textContent()).toBe('method');
        await checkLabel(head, 'findByUsername', qualified);
        // Callers in the panel name their own method first too.
        const caller = page.locator('[data-testid="callers"] .sym').first();
        await expect.poll(() => caller.count()).toBe(1);
        const callerName = (await caller.locator('.sym-name').textContent())!;
        expect(callerName).not.toContain('.');
        expect(await wholeText(caller.locator('.sym-name'))).toBe(true);
        expect(await caller.getAttribute('data-qualified')).toMatch(new RegExp(`\\.${callerName}$`));
        expect(await caller.getAttribute('title')).toContain(`${await caller.getAttribute('data-qualified')}`);
        await screenshot(page, `names-panel-${width}`);

        // The feature card's symbols and tests.
        await searchFor(page, 'find user by username');
        await page.getByTestId('card-button').click();
        const cardSymbol = page.getByTestId('card-symbols').locator('.card-symbol header .sym').first();
        await expect.poll(() => cardSymbol.count(), { timeout: 20_000 }).toBe(1);
        expect(await wholeText(cardSymbol.locator('.sym-name'))).toBe(true);
        expect(await cardSymbol.getAttribute('data-qualified')).toMatch(/^com\.acme\.users\./);
        expect(await cardSymbol.getAttribute('data-qualified')).toMatch(new RegExp(`${(await cardSymbol.locator('.sym-name').textContent())!}$`));
        await screenshot(page, `names-card-${width}`);

        // Tests for a change to the method: each test by its own name first.
        await page.getByTestId('tab-tests').click();
        await page.getByTestId('tests-for-symbols').fill(qualified);
        await page.getByTestId('tests-for-run').click();
        const test = page.getByTestId('recommended-test').first();
        await expect.poll(() => test.getAttribute('data-symbol'), { timeout: 20_000 }).toMatch(/UserServiceTest\.\w+$/);
        const testLabel = test.locator('header .sym').first();
        await checkLabel(testLabel, (await test.getAttribute('data-symbol'))!.split('.').pop()!, (await test.getAttribute('data-symbol'))!);
        await screenshot(page, `names-tests-for-${width}`);
        expect(await wholeText(test.locator('.sym-path .path-tail'))).toBe(true);
      });
    });
  });
}

function weight(locator: Locator): Promise<number> {
  return locator.first().evaluate((element) => Number(getComputedStyle(element).fontWeight));
}

async function below(lower: Locator, upper: Locator): Promise<boolean> {
  const [a, b] = await Promise.all([lower.first().boundingBox(), upper.first().boundingBox()]);
  return a !== null && b !== null && a.y >= b.y + b.height - 1;
}

export type { Page };
