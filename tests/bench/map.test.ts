// `make bench`'s map measurement: a synthetic repository of about 100,000
// definitions is indexed in Chromium, and the map is drawn with its level of
// detail and, as the reference in the same page, with every node drawn.
// Frame times are taken while the camera zooms in and out. Written to
// bench/map.json for fathom-bench. Without a GPU, Chromium's WebGL runs on
// SwiftShader (the CPU): the renderer is recorded with the numbers.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { zipSync } from 'fflate';
import { expect, inject, test } from 'vitest';
import { uploadZip, waitForState } from '../e2e/app';
import { launchBrowser, openApp } from '../e2e/browser';

const baseUrl = inject('baseUrl');
const PACKAGES = 40;
const MODULES = 50;
const CLASSES = 8;
const METHODS = 5;
const FUNCTIONS = 8;

/** 2,000 Python modules with 8 classes of 5 methods and 8 functions each, calling across modules. */
function syntheticRepository(): Uint8Array {
  const encoder = new TextEncoder();
  const files: Record<string, Uint8Array> = {};
  for (let p = 0; p < PACKAGES; p++) {
    files[`big/pkg${p}/__init__.py`] = encoder.encode('');
    for (let m = 0; m < MODULES; m++) {
      const other = `pkg${(p + 1) % PACKAGES}.mod${(m * 7) % MODULES}`;
      const lines = [`from big.${other} import f0, C0`, ''];
      for (let c = 0; c < CLASSES; c++) {
        lines.push(`class C${c}(${c === 0 ? 'object' : `C${c - 1}`}):`);
        for (let k = 0; k < METHODS; k++) {
          lines.push(`    def m${k}(self, x):`, `        return f${(c + k) % FUNCTIONS}(x) + self.m${(k + 1) % METHODS}(x)`);
        }
        lines.push('');
      }
      for (let f = 0; f < FUNCTIONS; f++) lines.push(`def f${f}(x):`, `    return f0(x) if x else C0().m0(${f})`, '');
      files[`big/pkg${p}/mod${m}.py`] = encoder.encode(lines.join('\n'));
    }
  }
  return zipSync(files, { level: 1 });
}

interface Frames {
  frames: number;
  p50_ms: number;
  p95_ms: number;
  fps: number;
  /** Nodes drawn once the camera is back at the whole map. */
  drawn_nodes: number;
  /** The most nodes sigma held at once during the zoom (the level of detail gives it only what is in view). */
  most_nodes_given_to_sigma: number;
  /** Reprocessing every node and edge (a theme or filter change), until drawn. */
  full_refresh_ms: number;
  /** Hovering the most connected node (and leaving it), until drawn. */
  hover_ms: number;
  /** The main thread's part of each: what a real GPU does not speed up. */
  full_refresh_js_ms: number;
  hover_js_ms: number;
}

test('the map at 100,000 nodes', async () => {
  const browser = await launchBrowser({ webgpu: false });
  const app = await openApp(browser, baseUrl);
  const { page } = app;
  try {
    const started = Date.now();
    await uploadZip(page, 'big.zip', syntheticRepository());
    await waitForState(page, 'ready', 900_000);
    const indexS = (Date.now() - started) / 1000;
    const mapStarted = Date.now();
    await page.getByTestId('tab-map').click();
    await page.getByTestId('map-level-files').click();
    const map = page.getByTestId('graph-view');
    await expect.poll(() => map.getAttribute('data-nodes'), { timeout: 300_000 }).toMatch(/^\d+$/);
    const mapS = (Date.now() - mapStarted) / 1000;
    await expect.poll(() => map.getAttribute('data-layout'), { timeout: 120_000 }).toBe('done');
    const nodes = Number(await map.getAttribute('data-nodes'));
    const edges = Number(await map.getAttribute('data-edges'));

    const measure = (all: boolean): Promise<Frames> =>
      page.evaluate(async (allLevels) => {
        type Camera = { animate(state: { ratio: number }, options: { duration: number }): Promise<void>; animatedReset(o: { duration: number }): Promise<void> };
        type Renderer = {
          getCamera(): Camera;
          refresh(): void;
          emit(event: string, payload: { node: string }): void;
          getGraph(): { order: number; forEachNode(cb: (n: string) => void): void; degree(n: string): number };
          getNodeDisplayData(n: string): { hidden?: boolean } | undefined;
        };
        const view = (globalThis as unknown as { fathomMap: { view: { renderer: Renderer; showAllLevels(a: boolean): void } } }).fathomMap.view;
        const renderer = view.renderer;
        const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
        /**
         * Milliseconds of main-thread work in `act` (the reducers: the same on
         * any GPU), and until the frame that shows it has been drawn.
         */
        const timed = async (act: () => void) => {
          const start = performance.now();
          act();
          const work = performance.now() - start;
          await frame();
          await frame();
          return { work, drawn: performance.now() - start };
        };
        view.showAllLevels(allLevels);
        const camera = renderer.getCamera();
        await camera.animatedReset({ duration: 0 });
        const fullRefresh = await timed(() => renderer.refresh());
        // Hovering the most connected node, and leaving it.
        let hub = '';
        renderer.getGraph().forEachNode((n) => {
          if (!hub || renderer.getGraph().degree(n) > renderer.getGraph().degree(hub)) hub = n;
        });
        const hoverIn = await timed(() => renderer.emit('enterNode', { node: hub }));
        const hoverOut = await timed(() => renderer.emit('leaveNode', { node: hub }));
        const times: number[] = [];
        let running = true;
        let mostDrawn = 0;
        const tick = (t: number) => {
          times.push(t);
          mostDrawn = Math.max(mostDrawn, renderer.getGraph().order);
          if (running) requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
        // Zoom in through every level of detail and back out.
        await camera.animate({ ratio: 0.1 }, { duration: 2500 });
        await camera.animate({ ratio: 1 }, { duration: 2500 });
        running = false;
        let drawn = 0;
        renderer.getGraph().forEachNode((n) => {
          if (!renderer.getNodeDisplayData(n)?.hidden) drawn++;
        });
        const gaps = times.slice(1).map((t, i) => t - times[i]!).sort((a, b) => a - b);
        const at = (q: number) => gaps[Math.round((gaps.length - 1) * q)] ?? 0;
        const total = (times.at(-1)! - times[0]!) / 1000;
        return {
          frames: gaps.length, p50_ms: at(0.5), p95_ms: at(0.95), fps: gaps.length / total, drawn_nodes: drawn, most_nodes_given_to_sigma: mostDrawn,
          full_refresh_ms: fullRefresh.drawn, hover_ms: (hoverIn.drawn + hoverOut.drawn) / 2,
          full_refresh_js_ms: fullRefresh.work, hover_js_ms: (hoverIn.work + hoverOut.work) / 2,
        };
      }, all);
    const lod = await measure(false);
    const everything = await measure(true);
    const renderer = await page.evaluate(() => {
      const gl = document.createElement('canvas').getContext('webgl2');
      const info = gl?.getExtension('WEBGL_debug_renderer_info');
      return gl && info ? String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)) : 'unknown';
    });
    const round = (x: number) => Math.round(x * 100) / 100;
    const frames = (f: Frames) => ({
      ...f, p50_ms: round(f.p50_ms), p95_ms: round(f.p95_ms), fps: round(f.fps), full_refresh_ms: round(f.full_refresh_ms), hover_ms: round(f.hover_ms),
      full_refresh_js_ms: round(f.full_refresh_js_ms), hover_js_ms: round(f.hover_js_ms),
    });
    const out = {
      nodes,
      edges,
      index_s: round(indexS),
      map_ready_s: round(mapS),
      level_of_detail: frames(lod),
      reference_all_nodes: frames(everything),
      renderer,
      note: /swiftshader/i.test(renderer)
        ? `WebGL on SwiftShader (CPU emulation, no GPU here): ${renderer}`
        : `WebGL renderer ${renderer}`,
    };
    const dir = fileURLToPath(new URL('../../bench/', import.meta.url));
    mkdirSync(dir, { recursive: true });
    writeFileSync(`${dir}map.json`, `${JSON.stringify(out, null, 1)}\n`);
    console.log(out);
    expect(nodes).toBeGreaterThan(100_000);
    expect(app.pageErrors).toEqual([]);
  } finally {
    await app.close();
    await browser.close();
  }
}, 1_800_000);
