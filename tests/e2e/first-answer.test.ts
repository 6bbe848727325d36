// A question never waits for MiniLM: words, names and the static lane answer
// at once after indexing, before any embedding batch (the lanes' timing
// included) completes, on SwiftShader's WebGPU and without WebGPU; the
// status line names the lanes that answered, MiniLM's reading refines the
// list when it comes, and a newer question cancels an older one's reading.
// The same in <fathom-explorer>. Orderings, not timers: the page records
// MiniLM's reports and the result list's renders in the order they happen.
import type { Page } from 'playwright-core';
import { describe, expect, inject, test } from 'vitest';
import type { FathomClient, Refinement } from '../../web/src/index';
import { uploadZip, waitForState } from './app';
import { screenshot, sharedBrowser, withApp } from './browser';
import { zipFixture } from './fixtures';

const baseUrl = inject('baseUrl');
/** SwiftShader takes seconds a chunk: timing its lane and the CPU's, then embedding, takes minutes at worst. */
const SETTLE_TIMEOUT = 600_000;
const QUERY = 'send_message';

/**
 * Records, in the page, MiniLM's reports (`embedding:<state>:<batches done>`)
 * and every render of the result list for `query`
 * (`results:<reading>:<lanes>`), in the order they happen.
 */
async function record(page: Page, root: string, query: string): Promise<void> {
  await page.evaluate(
    ({ root, query }) => {
      const w = globalThis as unknown as { order: string[]; fathomClient?: FathomClient; fathom?: FathomClient };
      w.order = [];
      const host = root === 'app' ? document : (document.querySelector(root)?.shadowRoot ?? document);
      const list = host.querySelector<HTMLElement>('[data-testid="search-results"]');
      if (!list) throw new Error('no result list');
      new MutationObserver(() => {
        if (list.dataset.query === query && list.querySelector('[data-testid="search-result"]')) {
          w.order.push(`results:${list.dataset.reading}:${list.dataset.lanes}`);
        }
      }).observe(list, { attributes: true, childList: true });
      const client = root === 'app' ? w.fathom : (document.querySelector(root) as unknown as { client: FathomClient }).client;
      client?.onEmbedding((p) => w.order.push(`embedding:${p.state}:${p.done - p.cached}`));
    },
    { root, query },
  );
}

const order = (page: Page): Promise<string[]> => page.evaluate(() => (globalThis as unknown as { order: string[] }).order);

/**
 * Where in the recorded order a timed or embedded batch first ended: the
 * first report after MiniLM's lanes were timed (measuring over), or of a
 * chunk embedded; -1 before any.
 */
function batchEnded(events: string[]): number {
  const measuring = events.findIndex((e) => e.startsWith('embedding:measuring:'));
  return events.findIndex((e, i) => {
    const [kind, state, done] = e.split(':');
    if (kind !== 'embedding') return false;
    if (Number(done) > 0 || ['embedding', 'building', 'ready', 'failed'].includes(state ?? '')) return true;
    return measuring >= 0 && i > measuring && state !== 'measuring';
  });
}

/** The recorded order's first render of the query's results comes before any batch ended, and names its lanes. */
function answeredFirst(events: string[]): void {
  const first = events.findIndex((e) => e.startsWith('results:'));
  expect(first, events.join('\n')).toBeGreaterThanOrEqual(0);
  expect(batchEnded(events), events.join('\n')).toBeGreaterThan(first);
  // Words answered: the list names its lanes.
  expect(events[first], events.join('\n')).toMatch(/^results:[a-z]*:.*\bwords\b/);
}

/** Two questions asked back to back through the client: the first one's reading is cancelled by the second. */
async function cancelled(client: string, page: Page): Promise<{ first: string; second: string; refined: Record<string, string> }> {
  return page.evaluate(async (client) => {
    const c = (client === 'app'
      ? (globalThis as unknown as { fathom: FathomClient }).fathom
      : (document.querySelector(client) as unknown as { client: FathomClient }).client);
    const refined: Record<string, string> = {};
    const heard = (name: string) => (r: Refinement) => {
      refined[name] = r.reading.state;
    };
    const [first, second] = await Promise.all([
      c.search('where is an email delivered to its recipient', {}, heard('first')),
      c.search('the longest side of a right triangle', {}, heard('second')),
    ]);
    const until = Date.now() + 300_000;
    while (Object.keys(refined).length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    return { first: first.reading.state, second: second.reading.state, refined };
  }, client);
}

for (const webgpu of [true, false]) {
  describe(webgpu ? 'with WebGPU on SwiftShader' : 'without WebGPU', () => {
    const browser = sharedBrowser({ webgpu });

    test(
      'words answer right after indexing, before any embedding batch ends; the lanes are named; a newer question cancels the older reading',
      async () => {
        await withApp(browser(), baseUrl, async ({ page }) => {
          await uploadZip(page, 'semantic-mini.zip', zipFixture('semantic-mini'));
          await waitForState(page, 'ready');
          await record(page, 'app', QUERY);
          await page.getByTestId('search-input').fill(QUERY);
          await page.waitForFunction((q) => document.querySelector<HTMLElement>('[data-testid="search-results"]')?.dataset.query === q, QUERY);
          const status = await page.locator('#search-status').textContent();
          expect(status).toMatch(/by words/);
          expect(await page.getByTestId('search-result').first().getAttribute('data-symbol')).toContain('send_message');

          // MiniLM loads, times its lanes, and embeds (on whichever was faster); then the order is read.
          await page.waitForFunction(
            () => {
              const badge = document.querySelector<HTMLElement>('[data-testid="embed-status"]');
              return badge?.dataset.state === 'ready' || badge?.dataset.state === 'failed' || (badge?.dataset.state === 'waiting' && badge.dataset.measured);
            },
            undefined,
            { timeout: SETTLE_TIMEOUT, polling: 500 },
          );
          answeredFirst(await order(page));
          const badge = await page.getByTestId('embed-status').evaluate(
            (el) => ({ ...(el as HTMLElement).dataset, text: el.textContent ?? '' }) as Record<string, string>,
          );
          // Chosen by measurement: the CPU's lane was timed, and WebGPU's too where it exists.
          expect(badge.measured, badge.text).toMatch(/cpu: [\d.]+ chunks\/s/);
          if (webgpu) expect(badge.measured, badge.text).toMatch(/webgpu: /);
          // A handful of chunks: embedded whole, on the faster lane, within seconds of the CPU's pace.
          expect(badge.state, badge.text).toBe('ready');
          expect(badge.text).not.toMatch(/min left|h left/);

          // The shown query ran again once MiniLM's index was built: its lanes are named.
          await page.waitForFunction(() => document.querySelector<HTMLElement>('[data-testid="search-results"]')?.dataset.meaning === 'minilm', undefined, { timeout: 60_000 });
          expect(await page.locator('#search-status').textContent()).toMatch(/by .*(words|MiniLM)/);
          await screenshot(page, `first-answer-${webgpu ? 'webgpu' : 'cpu'}`, SETTLE_TIMEOUT);
          await page.setViewportSize({ width: 390, height: 844 });
          await screenshot(page, `first-answer-${webgpu ? 'webgpu' : 'cpu'}-narrow`, SETTLE_TIMEOUT);
          await page.setViewportSize({ width: 1440, height: 900 });

          const asked = await cancelled('app', page);
          expect(asked.first).toBe('reading');
          expect(asked.refined.first, JSON.stringify(asked)).toBe('cancelled');
          expect(asked.refined.second, JSON.stringify(asked)).toBe('done');
        }, { embed: true });
      },
      SETTLE_TIMEOUT * 2,
    );
  });
}

describe('in <fathom-explorer>', () => {
  const browser = sharedBrowser();

  test(
    'with MiniLM asked for, words answer before any batch ends, MiniLM refines the list in place, and a newer question cancels the older reading',
    async () => {
      await withApp(browser(), new URL('embed.html', baseUrl).href, async ({ page }) => {
        const explorer = page.getByTestId('explorer');
        await expect.poll(() => explorer.getAttribute('state'), { timeout: 120_000 }).toBe('ready');
        // The same archive, now with meaning: the static table, and MiniLM (the wait over each question's candidates).
        await explorer.evaluate((el) => {
          el.removeAttribute('query');
          el.setAttribute('minilm', '');
          el.setAttribute('model', './model/');
        });
        await expect.poll(() => explorer.getAttribute('state'), { timeout: 120_000 }).toBe('ready');
        const query = 'parse a zip archive';
        await record(page, '[data-testid="explorer"]', query);
        await explorer.getByTestId('search-input').fill(query);
        const list = explorer.getByTestId('search-results');
        await expect.poll(() => list.getAttribute('data-query'), { timeout: 30_000 }).toBe(query);
        expect(await list.getAttribute('data-lanes')).toMatch(/\bwords\b/);
        // MiniLM loads and reads the question (on the faster of the CPU's workers
        // and SwiftShader's WebGPU, timed): asked again until its reading refines the list in place.
        const input = explorer.getByTestId('search-input');
        await expect.poll(async () => {
          await input.fill('');
          await input.fill(query);
          await expect.poll(() => list.getAttribute('data-query')).toBe(query);
          await expect.poll(() => list.getAttribute('data-reading'), { timeout: 60_000 }).not.toBe('reading');
          return list.getAttribute('data-lanes');
        }, { timeout: SETTLE_TIMEOUT, interval: 1000 }).toMatch(/minilm/);
        // The lanes' timing ends (and embedding starts, where it is worth it): then the order is read.
        await expect.poll(async () => batchEnded(await order(page)), { timeout: SETTLE_TIMEOUT, interval: 500 }).toBeGreaterThan(0);
        const events = await order(page);
        answeredFirst(events);
        expect(events.some((e) => /^results:done:.*minilm/.test(e)), events.join('\n')).toBe(true);
        const status = await explorer.locator('.search-status').textContent();
        expect(status).toMatch(/by .*MiniLM/);
        // SwiftShader may still be finishing the WebGPU lane's timed batch: a frame can wait for it.
        await screenshot(page, 'first-answer-explorer', SETTLE_TIMEOUT);
        await page.setViewportSize({ width: 390, height: 844 });
        await screenshot(page, 'first-answer-explorer-narrow', SETTLE_TIMEOUT);
        await page.setViewportSize({ width: 1440, height: 900 });

        const asked = await cancelled('[data-testid="explorer"]', page);
        expect(asked.first).toBe('reading');
        expect(asked.refined.first, JSON.stringify(asked)).toBe('cancelled');
        expect(['done', 'late'], JSON.stringify(asked)).toContain(asked.refined.second);
      });
    },
    SETTLE_TIMEOUT * 2,
  );
});
