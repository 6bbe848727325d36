// Semantic and hybrid search in the browser: MiniLM on WebGPU (SwiftShader, a
// real WebGPU device on the CPU), its parity with sentence-transformers, the
// IndexedDB embedding cache, and, where WebGPU is missing, the static lane at
// once, MiniLM over each question's candidates once its CPU workers load, and
// MiniLM over every chunk when the reader asks for it.
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, inject, test } from 'vitest';
import { uploadZip, waitForState } from './app';
import { screenshot, sharedBrowser, withApp as withAppIn, type AppPage } from './browser';
import { zipFixture } from './fixtures';

const baseUrl = inject('baseUrl');
/** SwiftShader runs MiniLM at about 10 s per 128 tokens: minutes, not seconds. */
const EMBED_TIMEOUT = 600_000;
/** One query embedded on SwiftShader, shaders for its length compiled included. */
const QUERY_TIMEOUT = 180_000;
const QUERY = 'length of the longest side of a right triangle';
const TARGET = 'geometry.hypotenuse';
/** A query the static lane answers (and MiniLM too), with no word of its target's code. */
const STATIC_QUERY = 'deliver an email to a recipient';
const STATIC_TARGET = 'outbox.send_message';

const parityDir = new URL('../../crates/fathom_embed/tests/fixtures/', import.meta.url);
const parityTexts: string[] = JSON.parse(readFileSync(new URL('parity-texts.json', parityDir), 'utf8')).texts;
const parityVectors: Float32Array[] = JSON.parse(readFileSync(new URL('parity-vectors.json', parityDir), 'utf8')).vectors.map(
  (b64: string) => {
    const bytes = Buffer.from(b64, 'base64');
    return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
  },
);

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return dot / Math.sqrt(na * nb);
}

/** A spread of the parity texts: prose, an error, an identifier, code, accents, an empty string, a long input. */
const PARITY_SAMPLE = [0, 12, 17, 23, 43, 51, 59];

async function embedParity(page: Page, backend: 'webgpu' | 'cpu'): Promise<number[]> {
  const texts = PARITY_SAMPLE.map((i) => parityTexts[i] ?? '');
  const flat = await page.evaluate(
    async ({ texts, backend }) => {
      const client = (globalThis as unknown as { fathom: { embedTexts(t: string[], b: string): Promise<Float32Array> } }).fathom;
      return Array.from(await client.embedTexts(texts, backend));
    },
    { texts, backend },
  );
  return PARITY_SAMPLE.map((index, i) => cosine(flat.slice(i * 384, (i + 1) * 384), parityVectors[index] as Float32Array));
}

async function waitForEmbeddings(page: Page): Promise<Record<string, string>> {
  await page.waitForFunction(
    () => {
      const state = document.querySelector<HTMLElement>('[data-testid="embed-status"]')?.dataset.state;
      return state === 'ready' || state === 'failed';
    },
    undefined,
    { timeout: EMBED_TIMEOUT, polling: 500 },
  );
  const badge = page.getByTestId('embed-status');
  const data = await badge.evaluate(
    (el) => ({ ...(el as HTMLElement).dataset, text: el.textContent ?? '' }) as Record<string, string>,
  );
  expect(data.state, data.text).toBe('ready');
  return data;
}

/** Types a query in a mode and returns the symbols listed, with each one's lanes. */
async function results(
  page: Page,
  query: string,
  mode: string,
): Promise<{ mode: string; meaning: string; reading: string; hits: { symbol: string; lanes: string[] }[] }> {
  await page.getByTestId('search-mode').selectOption(mode);
  await page.getByTestId('search-input').fill(query);
  const list = page.locator(`[data-testid="search-results"][data-query="${query}"]`);
  // A hybrid query embeds the query first: on SwiftShader that alone can take
  // longer than Playwright's default 30 s when the runner is busy.
  await list.waitFor({ state: 'attached', timeout: mode === 'lexical' ? 30_000 : QUERY_TIMEOUT });
  // Words answer at once; where MiniLM reads the question, its refinement follows: the settled list is read.
  await page.waitForFunction((m) => {
    const el = document.querySelector<HTMLElement>('[data-testid="search-results"]');
    return el?.dataset.mode !== undefined && (m === 'lexical' ? el.dataset.mode === 'lexical' : el.dataset.mode !== '') && el.dataset.reading !== 'reading';
  }, mode, { timeout: QUERY_TIMEOUT });
  return page.evaluate(() => {
    const list = document.querySelector<HTMLElement>('[data-testid="search-results"]');
    const hits = [...document.querySelectorAll<HTMLElement>('[data-testid="search-result"]')].map((li) => ({
      symbol: li.dataset.symbol ?? '',
      lanes: [...li.querySelectorAll<HTMLElement>('.lane')].map((l) => l.dataset.lane ?? ''),
    }));
    return { mode: list?.dataset.mode ?? '', meaning: list?.dataset.meaning ?? '', reading: list?.dataset.reading ?? '', hits };
  });
}

/** Searches until MiniLM (loading on the CPU in the background) re-ranks the question's candidates. */
async function rerankedWhenLoaded(page: Page): Promise<Awaited<ReturnType<typeof results>>> {
  const deadline = Date.now() + QUERY_TIMEOUT;
  while (Date.now() < deadline) {
    await results(page, QUERY, 'lexical');
    const found = await results(page, QUERY, 'hybrid');
    if (found.meaning === 'minilm_candidates') return found;
    await page.waitForTimeout(1000);
  }
  throw new Error('MiniLM never re-ranked a question on the CPU');
}

function withApp(browser: Browser, query: string, run: (app: AppPage) => Promise<void>): Promise<void> {
  return withAppIn(browser, `${baseUrl}${query}`, run, { embed: true });
}

describe('on WebGPU', () => {
  const browser = sharedBrowser();

  test(
    'embeds on WebGPU, then finds by meaning what lexical search misses, and reuses cached vectors',
    async () => {
      await withApp(browser(), '?backend=webgpu', async ({ page, requests }) => {
        await uploadZip(page, 'semantic-mini.zip', zipFixture('semantic-mini'));
        await waitForState(page, 'ready');
        // Lexical search answers at once, before any embedding is done.
        const early = await results(page, 'send_message', 'hybrid');
        expect(early.hits[0]?.symbol).toContain('send_message');

        const badge = await waitForEmbeddings(page);
        expect(badge.backend).toBe('webgpu');
        expect(Number(badge.done)).toBe(Number(badge.chunks));
        expect(requests.some((url) => url.endsWith('/model/minilm-l6-v2.f16.safetensors'))).toBe(true);

        let hybrid = await results(page, QUERY, 'hybrid');
        // A reading past its deadline (SwiftShader on a busy runner) is
        // answered without MiniLM, as designed: the question is asked again.
        for (let tries = 0; hybrid.reading === 'late' && tries < 3; tries += 1) {
          await results(page, 'send_message', 'lexical');
          hybrid = await results(page, QUERY, 'hybrid');
        }
        expect(hybrid.mode).toBe('hybrid');
        expect(hybrid.meaning, `MiniLM's reading: ${hybrid.reading}`).toBe('minilm');
        expect(hybrid.hits[0]?.symbol).toContain(TARGET);
        expect(hybrid.hits[0]?.lanes).toContain('dense');
        expect(hybrid.hits[0]?.lanes).not.toContain('lexical');
        await screenshot(page, 'semantic-webgpu-hybrid');

        const lexical = await results(page, QUERY, 'lexical');
        expect(lexical.mode).toBe('lexical');
        expect(lexical.hits.map((h) => h.symbol).join(' ')).not.toContain('hypotenuse');

        // Parity with sentence-transformers on WebGPU, on a spread of the parity texts.
        const cosines = await embedParity(page, 'webgpu');
        expect(Math.min(...cosines), cosines.join(', ')).toBeGreaterThanOrEqual(0.999);

        // Indexing a changed copy (a new archive, so not reopened from the
        // library): every chunk's vector comes from the embedding cache.
        await page.getByTestId('search-input').fill('');
        await page.getByTestId('embed-status').evaluate((el) => { (el as HTMLElement).dataset.state = 'stale'; });
        await uploadZip(page, 'semantic-mini.zip', zipFixture('semantic-mini', { 'NOTES.txt': 'a new file, not code\n' }));
        const again = await waitForEmbeddings(page);
        expect(await page.locator('#status-line').getAttribute('data-source')).toBe('indexed');
        expect(Number(again.cached)).toBe(Number(again.chunks));
      });
    },
    EMBED_TIMEOUT * 2,
  );
});

describe('without WebGPU', () => {
  const browser = sharedBrowser({ webgpu: false });

  test(
    'the static lane reads meaning at once, MiniLM re-ranks candidates on the CPU, embeds everything when asked, and takes over',
    async () => {
      // Every chunk is judged not worth embedding (?whole-within=0): MiniLM reads each question's candidates.
      await withApp(browser(), '?whole-within=0', async ({ page, requests }) => {
        await uploadZip(page, 'semantic-mini.zip', zipFixture('semantic-mini'));
        await waitForState(page, 'ready');
        await page.waitForFunction(
          () => {
            const badge = document.querySelector<HTMLElement>('[data-testid="embed-status"]');
            return badge?.dataset.state === 'waiting' && badge.dataset.measured;
          },
          undefined,
          { timeout: QUERY_TIMEOUT },
        );
        const waiting = await page.getByTestId('embed-status').evaluate(
          (el) => ({ ...(el as HTMLElement).dataset, text: el.textContent ?? '' }) as Record<string, string>,
        );
        expect(waiting.serving, waiting.text).toBe('static');
        expect(waiting.done).toBe('0');
        expect(waiting.backend).toBe('cpu');
        expect(waiting.measured).toMatch(/^cpu: [\d.]+ chunks\/s$/);
        expect(waiting.text).toContain('best candidates');
        expect(waiting.text).toContain('every chunk would take about');
        // The static table came from this origin.
        expect(requests.some((url) => url.endsWith('/model/minilm-l6-v2.static-v1.safetensors'))).toBe(true);

        // A hit by meaning, which words alone miss: the static lane's at
        // once, or MiniLM's over the question's candidates once its CPU
        // workers have loaded (in the background, from this origin).
        const early = await results(page, STATIC_QUERY, 'hybrid');
        expect(['static', 'minilm_candidates']).toContain(early.meaning);
        // The function and its module (one chunk each), in either order, and nothing else first.
        const found = early.hits.slice(0, 2).find((h) => h.symbol.endsWith(STATIC_TARGET));
        expect(found, JSON.stringify(early.hits)).toBeDefined();
        expect(found?.lanes).toContain('dense');
        expect(found?.lanes).not.toContain('lexical');
        expect(early.hits[0]?.symbol).toMatch(/outbox/);
        expect(await page.locator('#search-status').textContent()).toContain(
          early.meaning === 'static' ? 'the static lane' : 'MiniLM over the best candidates',
        );
        await screenshot(page, 'semantic-static-lane');
        await page.setViewportSize({ width: 420, height: 860 });
        await screenshot(page, 'semantic-static-lane-narrow');
        await page.setViewportSize({ width: 1440, height: 900 });
        const lexical = await results(page, STATIC_QUERY, 'lexical');
        expect(lexical.hits.map((h) => h.symbol).join(' ')).not.toContain(STATIC_TARGET);

        // Once MiniLM's CPU workers are in, it reads each question's
        // candidates without embedding the repository.
        const reranked = await rerankedWhenLoaded(page);
        expect(reranked.hits[0]?.symbol).toContain(TARGET);
        expect(reranked.hits[0]?.lanes).toContain('dense');
        expect(requests.some((url) => url.endsWith('/model/minilm-l6-v2.f16.safetensors'))).toBe(true);
        const status = await page.getByTestId('embed-status').evaluate((el) => ({ ...(el as HTMLElement).dataset }) as Record<string, string>);
        expect(status.done, 'no chunk is embedded into the index until asked').toBe('0');
        await screenshot(page, 'semantic-cpu-candidates');

        // The reader asks for every chunk: MiniLM embeds them on the lane it runs on, then takes over the dense lane.
        await page.getByTestId('run-minilm-whole').click();
        const badge = await waitForEmbeddings(page);
        expect(badge.backend).toBe('cpu');
        expect(badge.serving).toBe('minilm');
        expect(badge.text).toContain('cpu');
        // One MiniLM worker per core (at most 4), each its own instance: the badge counts those the page runs.
        const cores = await page.evaluate(() => navigator.hardwareConcurrency);
        const minilmWorkers = page.workers().filter((w) => w.url().includes('minilm-worker')).length;
        expect(Number(badge.workers)).toBe(minilmWorkers);
        if (cores > 1) expect(minilmWorkers, `${cores} cores`).toBeGreaterThan(1);
        if (minilmWorkers > 1) expect(badge.text).toContain(`${minilmWorkers} workers`);
        expect(requests.some((url) => url.endsWith('/model/minilm-l6-v2.f16.safetensors'))).toBe(true);

        const hybrid = await results(page, QUERY, 'hybrid');
        expect(hybrid.meaning).toBe('minilm');
        expect(hybrid.hits[0]?.symbol).toContain(TARGET);
        await screenshot(page, 'semantic-cpu-minilm');

        // The parity texts are cut across the workers and put back in order.
        const cosines = await embedParity(page, 'cpu');
        expect(Math.min(...cosines), cosines.join(', ')).toBeGreaterThanOrEqual(0.999);
      });
    },
    EMBED_TIMEOUT,
  );
});
