// `make bench`'s browser half: MiniLM throughput in Chromium on the CPU
// backend (wasm, no COOP/COEP) over the same 256 Flask chunks that
// fathom-bench embeds natively (bench/embed-sample.json, which `make bench`
// writes first), in the same batches, each cut across the page's MiniLM
// workers (one per core), beside one worker alone; and on WebGPU over 16 short
// texts. Written to bench/browser.json for fathom-bench. Without a GPU,
// Chromium's WebGPU is SwiftShader (a CPU emulation, about 10 s a chunk):
// the adapter is recorded so the number is never mistaken for a GPU's.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, inject, test } from 'vitest';
import { launchBrowser, openApp } from '../e2e/browser';

const baseUrl = inject('baseUrl');
const samplePath = fileURLToPath(new URL('../../bench/embed-sample.json', import.meta.url));
const short: string[] = JSON.parse(
  readFileSync(new URL('../../crates/fathom_embed/tests/fixtures/parity-texts.json', import.meta.url), 'utf8'),
).texts.slice(23, 39);
/** The CLI's batch (fathom_engine::embed::BATCH). */
const BATCH = 16;

test('embedding throughput in Chromium', async () => {
  if (!existsSync(samplePath)) throw new Error(`${samplePath} is missing: run \`fathom-bench embed-sample\` (make bench does)`);
  // Shortest first, as the page orders the chunks it embeds.
  const sample: string[] = JSON.parse(readFileSync(samplePath, 'utf8')).texts;
  const chunks = [...sample].sort((a, b) => a.length - b.length);
  const browser = await launchBrowser();
  const app = await openApp(browser, baseUrl);
  try {
    const rate = (texts: string[], backend: string, workers?: number): Promise<number> =>
      app.page.evaluate(async ({ texts, backend, workers, batch }) => {
        const client = (globalThis as unknown as { fathom: { embedTexts(t: string[], b: string, w?: number): Promise<Float32Array> } }).fathom;
        await client.embedTexts(texts.slice(0, 4), backend, workers); // load and warm up
        const start = performance.now();
        for (let at = 0; at < texts.length; at += batch) await client.embedTexts(texts.slice(at, at + batch), backend, workers);
        return texts.length / ((performance.now() - start) / 1000);
      }, { texts, backend, workers, batch: BATCH });
    // One worker first, the reference; then the page's default pool, whose workers are counted.
    const cpuOne = await rate(chunks, 'cpu', 1);
    const cpu = await rate(chunks, 'cpu');
    const cpuWorkers = app.page.workers().filter((w) => w.url().includes('minilm-worker')).length;
    const { minilmHeapBytes } = await app.page.evaluate(() =>
      (globalThis as unknown as { fathom: { memory(): Promise<{ minilmHeapBytes: number[] }> } }).fathom.memory(),
    );
    const { adapter: described, cores } = await app.page.evaluate(async () => {
      const adapter = await (navigator as unknown as { gpu?: { requestAdapter(): Promise<{ info?: Record<string, string> } | null> } }).gpu?.requestAdapter();
      // GPUAdapterInfo's fields are getters: copy them by name.
      const info = adapter?.info;
      const described = info ? Object.fromEntries(['vendor', 'architecture', 'device', 'description'].map((k) => [k, info[k] ?? ''])) : null;
      return { adapter: adapter ? described : null, cores: navigator.hardwareConcurrency };
    });
    const webgpu = described ? await rate(short, 'webgpu') : null;
    const result = { cpu, cpuOne, webgpu, adapter: described, cores };
    const adapter = JSON.stringify(result.adapter);
    const out = {
      cpu_sample: `${chunks.length} chunks of flask-3.0.3 (bench/embed-sample.json), shortest first, in batches of ${BATCH}`,
      cpu_chunks_per_s: Math.round(result.cpu * 100) / 100,
      cpu_workers: cpuWorkers,
      cores: result.cores,
      cpu_one_worker_chunks_per_s: Math.round(result.cpuOne * 100) / 100,
      cpu_worker_heap_mb: minilmHeapBytes.map((b) => Math.round(b / 1e6)),
      webgpu_sample: `${short.length} short texts (parity-texts.json), one batch`,
      webgpu_chunks_per_s: result.webgpu === null ? null : Math.round(result.webgpu * 100) / 100,
      adapter: result.adapter,
      note: /swiftshader/i.test(adapter)
        ? `Chromium WebGPU on SwiftShader (CPU emulation, no GPU here): ${adapter}`
        : `Chromium WebGPU adapter ${adapter}`,
    };
    const dir = fileURLToPath(new URL('../../bench/', import.meta.url));
    mkdirSync(dir, { recursive: true });
    writeFileSync(`${dir}browser.json`, `${JSON.stringify(out, null, 1)}\n`);
    console.log(out);
    expect(out.cpu_chunks_per_s).toBeGreaterThan(0);
  } finally {
    await app.close();
    await browser.close();
  }
}, 1_800_000);
