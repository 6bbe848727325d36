// The one-click demo: Fathom's own sources, served next to the app.
import { beforeAll, describe, expect, inject, test } from 'vitest';
import { citationOf, countOf, highlighted, resultCount, searchFor, summaryCounts, waitForCode, waitForState } from './app';
import { openApp, screenshot, sharedBrowser } from './browser';


const baseUrl = inject('baseUrl');
const browser = sharedBrowser();

beforeAll(async () => {
  const demo = await fetch(new URL('demo/fathom.zip', baseUrl));
  expect(demo.ok, 'dist/demo/fathom.zip is missing: the build must write www/public/demo/fathom.zip').toBe(true);
});

describe('demo archive', () => {
  test('the demo button indexes Fathom itself and finds FathomClient', async () => {
    const app = await openApp(browser(), baseUrl);
    try {
      const { page } = app;
      await page.getByTestId('demo-button').click();
      await waitForState(page, 'ready');
      expect(await countOf(page, 'summary-files')).toBeGreaterThan(0);
      expect((await summaryCounts(page, 'summary-files', 'language')).typescript).toBeGreaterThan(0);

      await searchFor(page, 'FathomClient');
      expect(await resultCount(page)).toBeGreaterThan(0);
      const citation = await citationOf(page, 0);
      expect(citation.file).toMatch(/client\.ts$/);
      await page.getByTestId('search-result').first().click();
      await waitForCode(page, citation);
      expect((await highlighted(page)).text).toContain('class FathomClient');
      await screenshot(page, 'demo-fathom-client');

      // A hit in a test file says what its file is; the project's own code says nothing.
      await searchFor(page, 'a_folder_with_its_own_copyright_notice_is_another_projects_code');
      const first = page.getByTestId('search-result').first();
      expect(await first.getAttribute('data-symbol')).toMatch(/a_folder_with_its_own_copyright_notice/);
      expect(await first.locator('.lane-role').textContent()).toBe('test');
      await screenshot(page, 'demo-role-chip');
      await page.setViewportSize({ width: 420, height: 860 });
      await screenshot(page, 'demo-role-chip-narrow');
      await page.setViewportSize({ width: 1440, height: 900 });
      await searchFor(page, 'FathomClient');
      expect(await page.getByTestId('search-result').first().locator('.lane-role').count()).toBe(0);

      expect(app.foreignRequests()).toEqual([]);
      expect(app.pageErrors).toEqual([]);
    } finally {
      await app.close();
    }
  });

  test('`?demo` opens the demo archive on load', async () => {
    const app = await openApp(browser(), `${baseUrl}?demo`);
    try {
      await waitForState(app.page, 'ready');
      expect(await app.page.locator('#status-line').textContent()).toContain('fathom.zip');
      expect(await countOf(app.page, 'summary-files')).toBeGreaterThan(0);
    } finally {
      await app.close();
    }
  });
});
