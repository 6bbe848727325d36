// `make bench`'s browser half: MiniLM throughput in Chromium on WebGPU and on
// the CPU backend (wasm), written to bench/browser.json for fathom-bench.
// Without a GPU, Chromium's WebGPU is SwiftShader (a CPU emulation): the
// adapter is recorded so the number is never mistaken for a GPU's.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, inject, test } from 'vitest';
import { launchBrowser, openApp } from '../e2e/browser';

const baseUrl = inject('baseUrl');
const texts: string[] = JSON.parse(
  readFileSync(new URL('../../crates/fathom_embed/tests/fixtures/parity-texts.json', import.meta.url), 'utf8'),
).texts.slice(23, 39);

test('embedding throughput in Chromium', async () => {
  const browser = await launchBrowser();
  const app = await openApp(browser, baseUrl);
  try {
    const result = await app.page.evaluate(async (texts) => {
      const client = (globalThis as unknown as { fathom: { embedTexts(t: string[], b: string): Promise<Float32Array> } }).fathom;
      const adapter = await (navigator as unknown as { gpu?: { requestAdapter(): Promise<{ info?: Record<string, string> } | null> } }).gpu?.requestAdapter();
      const rate = async (backend: string) => {
        await client.embedTexts(texts.slice(0, 2), backend); // load and warm up
        const start = performance.now();
        await client.embedTexts(texts, backend);
        return texts.length / ((performance.now() - start) / 1000);
      };
      const cpu = await rate('cpu');
      const webgpu = adapter ? await rate('webgpu') : null;
      // GPUAdapterInfo's fields are getters: copy them by name.
      const info = adapter?.info;
      const described = info ? Object.fromEntries(['vendor', 'architecture', 'device', 'description'].map((k) => [k, info[k] ?? ''])) : null;
      return { cpu, webgpu, adapter: described };
    }, texts);
    const adapter = JSON.stringify(result.adapter);
    const out = {
      chunks: texts.length,
      cpu_chunks_per_s: Math.round(result.cpu * 100) / 100,
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
