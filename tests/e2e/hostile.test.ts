// A representative part of the hostile corpus (tests/hostile/generate.py),
// dropped into the page one after another: a gzip bomb, 5,000 nested
// functions, an inheritance cycle, HTML in names and docstrings, a zip cut in
// half, and a PNG named .zip. For each, the tab survives and says what
// happened, no dialog opens and no script from the archive runs, and the
// ordinary file is found; the page answers while the bomb is read; the next
// archive indexes normally.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { citationOf, countOf, openSidebar, searchFor, uploadZip, waitForState } from './app';
import { screenshot, sharedBrowser, withApp } from './browser';
import { zipFixture } from './fixtures';

const baseUrl = inject('baseUrl');
const browser = sharedBrowser();
const root = fileURLToPath(new URL('../..', import.meta.url));
let corpus = '';

beforeAll(() => {
  corpus = mkdtempSync(join(tmpdir(), 'fathom-hostile-'));
  execFileSync('python3', [join(root, 'tests/hostile/generate.py'), corpus], { stdio: 'ignore' });
});

afterAll(() => {
  // The generator's unreadable folders must be readable again to be removed.
  execFileSync('chmod', ['-R', 'u+rwx', corpus]);
  rmSync(corpus, { recursive: true, force: true });
});

interface Case {
  file: string;
  /** What the skipped list must hold: [reason, part of the path]. */
  skipped: [string, string][];
}

const INDEXED: Case[] = [
  { file: 'bomb-targz.tar.gz', skipped: [['too_large', 'zeros.py'], ['limit', 'the rest of bomb-targz.tar.gz']] },
  { file: 'file-5000-nested-functions.zip', skipped: [] },
  { file: 'graph-inheritance-cycle.zip', skipped: [] },
  { file: 'name-html.zip', skipped: [] },
  { file: 'file-html-in-docs.zip', skipped: [] },
  { file: 'zip-truncated-half.zip', skipped: [['unreadable', 'the rest of zip-truncated-half.zip']] },
];

describe('hostile archives in the page', () => {
  test('each is indexed or refused with its cause, runs nothing, and the next archive indexes normally', async () => {
    await withApp(browser(), baseUrl, async ({ page }) => {
      const dialogs: string[] = [];
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      for (const { file, skipped } of INDEXED) {
        await uploadZip(page, file, readFileSync(join(corpus, file)));
        // Input is answered while the worker reads: the search box takes
        // what is typed while the state is still 'indexing'.
        const answered: string[] = [];
        for (let i = 0; (await page.evaluate(() => document.body.dataset.state)) === 'indexing'; i++) {
          await page.getByTestId('search-input').fill(`typed ${i}`);
          answered.push(await page.getByTestId('search-input').inputValue());
        }
        expect(answered.every((value, i) => value === `typed ${i}`)).toBe(true);
        if (file.startsWith('bomb')) expect(answered.length, 'input answered while the bomb was read').toBeGreaterThan(0);
        await waitForState(page, 'ready');
        // What was left out is listed with its reason.
        await openSidebar(page);
        const list = page.getByTestId('skipped');
        for (const group of await list.locator('details summary').all()) await group.click();
        // Each group's items are drawn once it opens.
        const listed = (): Promise<string[][]> => list.locator('li[data-path]').evaluateAll((items) =>
          items.map((li) => [li.closest('[data-reason]')?.getAttribute('data-reason') ?? '', (li as HTMLElement).dataset.path ?? '']));
        const missing = async (): Promise<string[][]> => {
          const now = await listed();
          return skipped.filter(([reason, part]) => !now.some(([r, p]) => r === reason && (p ?? '').includes(part)));
        };
        await expect.poll(missing, { message: `${file}: skipped as expected` }).toEqual([]);
        // The ordinary file is found.
        await searchFor(page, 'hostile_needle_marker');
        expect((await citationOf(page, 0)).file).toMatch(/hostile_needle\.py$/);
        await screenshot(page, `hostile-${file.replace(/\W+/g, '-')}`);
      }
      // Names and docstrings holding HTML were shown as text: none of it became an element.
      expect(await page.locator('img[src="x"], svg[onload], script:not([src]):has-text("alert")').count()).toBe(0);

      // A PNG named .zip is refused, naming what it is.
      await uploadZip(page, 'zip-png.zip', readFileSync(join(corpus, 'zip-png.zip')));
      await waitForState(page, 'error');
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('is a PNG image, not a zip, tar or tar.gz archive');
      await screenshot(page, 'hostile-png-refused');

      // And the next archive indexes normally.
      await uploadZip(page, 'webapp.zip', zipFixture('webapp'));
      await waitForState(page, 'ready');
      expect(await countOf(page, 'summary-files')).toBe(6);
      expect(dialogs).toEqual([]);
    });
  });
});

describe('a panic in the engine', () => {
  test('is reported, the worker restarts, and the library is intact and reopens', async () => {
    await withApp(browser(), `${baseUrl}?test-hooks`, async ({ page }) => {
      await uploadZip(page, 'webapp.zip', zipFixture('webapp'));
      await waitForState(page, 'ready');
      const saved = page.getByTestId('recent').locator('li[data-name="webapp.zip"]');
      await expect.poll(() => saved.count(), { timeout: 10_000 }).toBe(1);

      // The hook panics inside the engine, as a bug would: the call fails.
      const failed = await page.evaluate(() =>
        (globalThis as unknown as { fathomPanic(): Promise<void> }).fathomPanic().then(() => '', (e: Error) => e.message));
      expect(failed).toMatch(/internal error \(panicked at .*a panic forced by the test hook\) and was restarted/);
      await waitForState(page, 'error');
      const banner = page.getByRole('alert');
      await expect.poll(() => banner.textContent()).toMatch(/stopped on an internal error .*restarted.*open it from the library/);
      await screenshot(page, 'panic-reported');
      await page.setViewportSize({ width: 390, height: 844 });
      await screenshot(page, 'panic-reported-narrow');
      await page.setViewportSize({ width: 1440, height: 900 });

      // The library still holds the index, and the fresh worker opens it.
      expect(await saved.count()).toBe(1);
      await saved.locator('[data-testid="recent-open"]').click();
      await waitForState(page, 'ready');
      await searchFor(page, 'compute_total');
      expect((await citationOf(page, 0)).file).toBe('server/billing.py');
      await openSidebar(page);
      await saved.locator('[data-testid="recent-delete"]').click();
    });
  });
});
