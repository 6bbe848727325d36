// `make bench`'s browser half for the static lane, written to
// bench/static.json for fathom-bench: Django dropped on the app in Chromium
// with WebGPU off, timed from the drop to the first hybrid answer that reads
// meaning (the static lane's), in fresh browsers; and the lane's build over
// Django's chunks, as the worker timed it.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, inject, test } from 'vitest';
import type { EmbeddingProgress, FathomClient } from '../../web/src/index';
import { waitForState } from '../e2e/app';
import { launchBrowser, openApp } from '../e2e/browser';

const baseUrl = inject('baseUrl');
const corpora = process.env.FATHOM_CORPORA ?? `${process.env.HOME}/.cache/fathom/corpora`;
const DJANGO = 'Django-5.0.6';
/** A question by meaning; its words are not the code's (`mail_admins`). */
const QUERY = 'notify the site administrators by email';
const RUNS = 3;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const round = (x: number, digits = 3): number => Math.round(x * 10 ** digits) / 10 ** digits;

interface Run {
  dropToAnswerS: number;
  chunks: number;
  staticMs: { load: number; build: number };
}

test('the static lane in Chromium: Django from the drop to its first hybrid answer, WebGPU off', async () => {
  const archive = readFileSync(`${corpora}/${DJANGO}.tar.gz`);
  const runs: Run[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const browser = await launchBrowser({ webgpu: false });
    try {
      const app = await openApp(browser, baseUrl, { embed: true });
      const { page } = app;
      await page.evaluate(() => {
        const client = (globalThis as unknown as { fathom: FathomClient }).fathom;
        client.onEmbedding((p) => {
          (globalThis as unknown as { meaning?: EmbeddingProgress }).meaning = p;
        });
      });
      const started = Date.now();
      await page.getByTestId('archive-input').setInputFiles({ name: `${DJANGO}.tar.gz`, mimeType: 'application/gzip', buffer: archive });
      await waitForState(page, 'ready', 600_000);
      await page.getByTestId('search-input').fill(QUERY);
      await page.locator('[data-testid="search-results"][data-meaning="static"]').waitFor({ state: 'attached', timeout: 600_000 });
      const dropToAnswerS = (Date.now() - started) / 1000;
      const meaning = await page.evaluate(() => (globalThis as unknown as { meaning?: EmbeddingProgress }).meaning);
      if (!meaning?.staticMs) throw new Error(`the static lane was not built: ${JSON.stringify(meaning)}`);
      expect(meaning.state).toBe('waiting');
      expect(await page.getByTestId('search-result').count()).toBeGreaterThan(0);
      runs.push({ dropToAnswerS, chunks: meaning.chunks, staticMs: meaning.staticMs });
      expect(app.foreignRequests()).toEqual([]);
      await app.close();
    } finally {
      await browser.close();
    }
  }
  const builds = runs.map((r) => r.staticMs.build);
  const build = median(builds);
  const chunks = runs[0]?.chunks ?? 0;
  const report = {
    corpus: DJANGO.toLowerCase(),
    chunks,
    runs: RUNS,
    query: QUERY,
    drop_to_first_hybrid_answer_s: round(median(runs.map((r) => r.dropToAnswerS))),
    drop_to_first_hybrid_answer_runs_s: runs.map((r) => round(r.dropToAnswerS)),
    build_ms: build,
    build_runs_ms: builds,
    table_load_ms: median(runs.map((r) => r.staticMs.load)),
    chunks_per_s: Math.round(chunks / (build / 1000)),
    goal_chunks_per_s: 10_000,
    goal_drop_to_answer_s: 15,
  };
  const dir = fileURLToPath(new URL('../../bench/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}static.json`, `${JSON.stringify(report, null, 1)}\n`);
  console.log(report);
  expect(chunks).toBeGreaterThan(40_000);
}, 1_800_000);
