// `make bench`'s documentation site, written to bench/split.json: a static
// host (tests/bench/counted-serve.ts: Range requests, gzip as hosts send it,
// every response logged) serves `fathom-explorer.js`, its assets and one
// project's bundle, and a cold visitor opens a page whose explorer asks the
// first of five queries (names, a phrase and a question); the others are
// typed after it, a result's file is opened, and the tab's peak memory read.
// Once on loopback and once held to a slow mobile link (150 ms per request,
// 1.6 Mbit/s shared), the host doing the shaping so that the engine's worker
// and the page are held alike. Each figure is printed for the whole bundle
// (`fathom index -o FILE`) and split (`fathom index --split -o DIR`), read in
// parts, beside it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { expect, test } from 'vitest';
import { launchBrowser, openApp } from '../e2e/browser';
import { benchProjects, explorerSite, fathomRelease, rendererPeakKb } from './release';
import { countedHost, type Host, type Protocol, type Served, waves } from './counted-serve';

interface Project {
  name: string;
  /** What `fathom index` reads, under the corpora. */
  source: string;
  /** A name, names, a phrase and a question. */
  queries: string[];
}
const PROJECTS: Project[] = [
  {
    name: 'grpc-go 1.64.0', source: 'grpc-go-1.64.0.tar.gz',
    queries: ['NewClient', 'UnaryInterceptor', 'keepalive ping', 'round robin balancer', 'how does the client retry a failed call'],
  },
  {
    name: 'Django 5.0.6', source: 'Django-5.0.6',
    queries: ['get_object_or_404', 'QuerySet', 'csrf token', 'password hashing', 'how are database migrations applied'],
  },
  {
    name: 'synthetic 50,000 files', source: 'synthetic-50000.zip',
    queries: ['Record4242', 'load_123', 'record has no name', 'validate', 'how are records scored'],
  },
];
const SLOW = { latency_ms: 150, bytes_per_second: 200_000 };
// FATHOM_SPLIT_PROTOCOL=http1 serves the site over HTTP/1.1 instead.
const PROTOCOL: Protocol = process.env.FATHOM_SPLIT_PROTOCOL === 'http1' ? 'http1' : 'h2';
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

const page = (bundle: string, query: string) => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Explored</title>
    <link rel="icon" href="data:," />
    <script type="module" src="fathom-explorer.js"></script>
  </head>
  <body><fathom-explorer data-testid="explorer" bundle="${bundle}" query="${query}"></fathom-explorer></body>
</html>
`;

/** Sums what crossed the wire, and what would have with the host compressing everything or nothing. */
function bytes(served: Served[]) {
  const sum = (f: (s: Served) => number) => served.reduce((n, s) => n + f(s), 0);
  return {
    requests: served.length,
    wire: sum((s) => s.header_bytes + s.body_bytes),
    host_gzips: sum((s) => s.header_bytes + s.gzip_bytes),
    host_plain: sum((s) => s.header_bytes + s.plain_bytes),
  };
}

/** Waits, in the page, for the explorer's list to show `query`'s results; their citations, top first. */
async function results(page: Page, query: string, timeout: number): Promise<string[]> {
  const handle = await page.waitForFunction(
    (query) => {
      const list = document.querySelector('fathom-explorer')?.shadowRoot?.querySelector<HTMLElement>('[data-testid="search-results"]');
      if (!list || list.dataset.query !== query) return false;
      const hits = [...list.querySelectorAll('[data-testid="search-result"]')];
      if (hits.length === 0) return false;
      return hits.slice(0, 10).map((hit) => hit.querySelector('.cite')?.textContent ?? hit.getAttribute('data-file') ?? '');
    },
    query, { timeout, polling: 20 },
  );
  return (await handle.jsonValue()) as string[];
}


interface Visit {
  first_answer_ms: number;
  /** Everything before the first answer: the page, engine and UI, and the index. */
  before_first: ReturnType<typeof bytes>;
  requested_before_first: string[];
  /**
   * waves: the index's round trips one after another (a split bundle's:
   * its root, then the waves its engine asked for; a whole one's, as the
   * host saw them); host_waves: as the host saw them, which on loopback,
   * where each request ends before the next is sent, counts every request;
   * after_engine: the host's, begun once the engine's module had come (what
   * the engine waited for), the rest having overlapped its download.
   */
  index_before_first: ReturnType<typeof bytes> & { waves: number; host_waves: number; waves_after_engine: number };
  further_queries: { query: string; ms: number; index: ReturnType<typeof bytes> }[];
  further_query_index_wire_median: number;
  /** A result's file opened from the list, with its symbol's panel (callers, callees, tests); file_item: the file's own item's bytes, of a split bundle. */
  open_file: ReturnType<typeof bytes> & { file: string; file_item: number | null };
  /**
   * For each query's top hit, asked through the client in turn: its panel
   * (`symbol`: context, callers, callees, tests) and then its impact (4 hops,
   * the panel's button), with the index bytes each fetched and its time;
   * asked: where the impact would fetch past 5 MB, the estimate it was
   * refused with before it was allowed (the time and bytes include both).
   */
  graph: { symbol: string; panel: { ms: number; wire: number }; impact: { ms: number; wire: number; reached: number; asked: number | null } }[];
  graph_panel_wire_median: number;
  graph_impact_wire_median: number;
  /** The tab's peak memory once it has answered the queries and opened a file; and after the graph questions too. */
  peak_renderer_kb: number;
  peak_after_graph_kb: number;
  /** Of the tab's memory, the engine's: its wasm linear memory (which only grows) and what its allocator held at most, at the same two points. */
  engine_heap: { linear_kb: number; peak_live_kb: number; after_graph_linear_kb: number; after_graph_peak_live_kb: number };
  /** The first rows the list shows, grouped by file. */
  top10: Record<string, string[]>;
  /** Each query's top ten as the engine ranks them (`client.search`, k 10, words), asked once the visit is measured. */
  ranked: Record<string, string[]>;
  foreign_requests: string[];
}

/** One cold visit: a new browser, the page opened, each query asked, a file opened. */
async function visit(browser: Browser, host: Host, url: string, project: Project, isIndex: (s: Served) => boolean): Promise<Visit> {
  // A blank page of the site first (openApp navigates to what it is given):
  // the visit measured is the only one to load the explorer.
  const app = await openApp(browser, `${host.url}blank.html`);
  try {
    host.take();
    const started = Date.now();
    await app.page.goto(url);
    const top10: Record<string, string[]> = {};
    const [first, ...rest] = project.queries as [string, ...string[]];
    top10[first] = await results(app.page, first, 900_000);
    const first_answer_ms = Date.now() - started;
    // A split reader's waves as its engine counts them, the root's before them.
    const engineWaves = await app.page.evaluate(async () => (await document.querySelector('fathom-explorer')?.client?.splitFetched())?.waves ?? null);
    const cold = host.take();
    const index = cold.filter(isIndex);
    // The engine's module: the viewer's, xz-compressed, or the whole engine's.
    const engineEnd = Math.max(...cold.filter((s) => /\/assets\/fathom_wasm(_viewer)?_bg[^/]*\.wasm/.test(s.path)).map((s) => s.end_ms));
    const further_queries = [];
    const input = app.page.getByTestId('explorer').getByTestId('search-input');
    for (const query of rest) {
      const asked = Date.now();
      await input.fill(query);
      top10[query] = await results(app.page, query, 300_000);
      further_queries.push({ query, ms: Date.now() - asked, index: bytes(host.take().filter(isIndex)) });
    }
    // Opening the first result of the last query shows its file, and its symbol's panel.
    const fetched = () => app.page.evaluate(async () => (await document.querySelector('fathom-explorer')?.client?.splitFetched()) ?? null);
    const filesBefore = (await fetched())?.files;
    const hit = app.page.getByTestId('explorer').getByTestId('search-result').first();
    const file = (await hit.getAttribute('data-file')) ?? '';
    await hit.click();
    await expect.poll(() => app.page.getByTestId('explorer').getByTestId('code-path').textContent(), { timeout: 120_000 }).toContain(file.split('/').pop());
    // Its symbol's panel, where the hit names a symbol the engine can answer for.
    await app.page.getByTestId('explorer').getByTestId('symbol-panel').waitFor({ state: 'visible', timeout: 60_000 }).catch(() => undefined);
    const opened = host.take();
    const filesAfter = (await fetched())?.files;
    const file_item = filesBefore !== undefined && filesAfter !== undefined ? filesAfter - filesBefore : null;
    const ranked = await app.page.evaluate(async (queries) => {
      const client = document.querySelector('fathom-explorer')?.client;
      if (!client) throw new Error('the explorer has no client');
      const out: Record<string, string[]> = {};
      for (const query of queries) {
        out[query] = (await client.search(query, { k: 10, mode: 'lexical' })).hits.map((h) => `${h.file}:${h.start_line}-${h.end_line} ${h.symbol}`);
      }
      return out;
    }, project.queries);
    const peak_renderer_kb = rendererPeakKb();
    const engineHeap = () => app.page.evaluate(async () => {
      const client = document.querySelector('fathom-explorer')?.client;
      if (!client) throw new Error('the explorer has no client');
      const memory = await client.memory();
      return { linear_kb: Math.round(memory.heapBytes / 1024), peak_live_kb: Math.round(memory.peakLiveBytes / 1024) };
    });
    const heapBefore = await engineHeap();
    // Each query's top hit: its panel, then its impact, each measured alone.
    const graph: Visit['graph'] = [];
    for (const query of project.queries) {
      const symbol = ranked[query]?.[0]?.split(' ')[1];
      if (!symbol) continue;
      host.take();
      // An impact past the 5 MB a question fetches unasked is refused with its estimate, then allowed, as the panel's button does.
      const ask = (what: 'panel' | 'impact') => app.page.evaluate(async ([symbol, what]) => {
        const client = document.querySelector('fathom-explorer')?.client;
        if (!client) throw new Error('the explorer has no client');
        const asked = performance.now();
        let estimate: number | null = null;
        const impact = () => client.impact(symbol, 4).catch((error: Error & { bytes?: number }) => {
          if (error.name !== 'CostlyQuery') throw error;
          estimate = error.bytes ?? null;
          return client.impact(symbol, 4, { allowBytes: Number.MAX_SAFE_INTEGER });
        });
        const reached = what === 'panel' ? (await client.symbol(symbol), 0) : (await impact()).length;
        return { ms: Math.round(performance.now() - asked), reached, estimate };
      }, [symbol, what] as const);
      const panel = await ask('panel');
      const panelWire = bytes(host.take().filter(isIndex)).wire;
      const impact = await ask('impact');
      const impactWire = bytes(host.take().filter(isIndex)).wire;
      graph.push({ symbol, panel: { ms: panel.ms, wire: panelWire }, impact: { ms: impact.ms, wire: impactWire, reached: impact.reached, asked: impact.estimate } });
    }
    return {
      first_answer_ms,
      before_first: bytes(cold),
      // What each of those requests was, and its body's bytes on the wire.
      requested_before_first: cold.map((s) => `${s.path} ${s.body_bytes}`),
      index_before_first: {
        ...bytes(index),
        waves: engineWaves === null ? waves(index) : engineWaves + 1,
        host_waves: waves(index),
        waves_after_engine: waves(index.filter((s) => s.start_ms >= engineEnd)),
      },
      further_queries,
      further_query_index_wire_median: median(further_queries.map((q) => q.index.wire)),
      open_file: { ...bytes(opened.filter(isIndex)), file, file_item },
      graph,
      graph_panel_wire_median: median(graph.map((g) => g.panel.wire)),
      graph_impact_wire_median: median(graph.map((g) => g.impact.wire)),
      peak_renderer_kb,
      peak_after_graph_kb: rendererPeakKb(),
      engine_heap: await engineHeap().then((after) => ({
        ...heapBefore, after_graph_linear_kb: after.linear_kb, after_graph_peak_live_kb: after.peak_live_kb,
      })),
      top10,
      ranked,
      foreign_requests: app.foreignRequests(),
    };
  } finally {
    await app.close();
  }
}

test('a documentation site: bytes, round trips and time to the first answer, on loopback and a slow link', async () => {
  const fathom = fathomRelease();
  const site = explorerSite('fathom-split-');
  writeFileSync(join(site, 'blank.html'), '<!doctype html><title>blank</title><link rel="icon" href="data:," />\n');
  // HTTP/2, as documentation hosts serve: a wave's requests share one
  // connection (over HTTP/1.1 a browser fetches six at a time).
  const host = await countedHost(site, {}, PROTOCOL);
  const projects = [];
  try {
    for (const { project, source, slug } of benchProjects(PROJECTS)) {
      const bundle = `${slug}.fathom`;
      const indexed = Date.now();
      execFileSync(fathom, ['index', source, '-o', join(site, bundle), '--vectors', 'none'], { stdio: 'inherit', timeout: 20 * 60_000 });
      const index_s = (Date.now() - indexed) / 1000;
      writeFileSync(join(site, `${slug}.html`), page(bundle, project.queries[0] as string));
      // The same index split: a root and items (`fathom index --split`), read by the page in parts.
      const folder = `${slug}-split`;
      execFileSync(fathom, ['index', source, '--split', '--vectors', 'none', '-o', join(site, folder)], { stdio: 'inherit', timeout: 20 * 60_000 });
      writeFileSync(join(site, `${folder}.html`), page(`${folder}/`, project.queries[0] as string));
      const items = readdirSync(join(site, folder, 's'));
      const split_bytes = statSync(join(site, folder, 'root.fathom')).size + items.reduce((n, f) => n + statSync(join(site, folder, 's', f)).size, 0);
      const whole: Record<string, Visit> = {};
      const split: Record<string, Visit> = {};
      for (const [link, shaping] of [['loopback', null], ['slow_link', SLOW]] as const) {
        host.set({ shaping, ranges: true, compress: true });
        for (const [visits, html, isIndex] of [
          [whole, `${slug}.html`, (s: Served) => s.path.startsWith(`/${bundle}`)],
          [split, `${folder}.html`, (s: Served) => s.path.startsWith(`/${folder}/`)],
        ] as const) {
          const browser = await launchBrowser({ webgpu: false, selfSignedTls: true });
          try {
            visits[link] = await visit(browser, host, `${host.url}${html}`, project, isIndex);
          } finally {
            await browser.close();
          }
        }
      }
      projects.push({
        name: project.name, bundle_bytes: statSync(join(site, bundle)).size, split_bytes, split_items: items.length + 1,
        index_s, queries: project.queries, whole, split,
      });
      console.log(JSON.stringify(projects.at(-1), null, 1));
    }
  } finally {
    await host.close();
    rmSync(site, { recursive: true, force: true });
  }
  const out = {
    protocol: PROTOCOL,
    note: 'A cold visit to a documentation site embedding <fathom-explorer> over a project\'s bundle, served by a counting static host (tests/bench/counted-serve.ts; over HTTP/2 with TLS unless protocol says http1) on loopback and held to 150 ms per request and 1.6 Mbit/s shared (slow_link). Bytes: wire (as sent, the host gzipping what is not compressed already), host_gzips and host_plain (every body gzipped, or none), headers included. waves: round trips one after another. whole: the bundle written by `fathom index -o FILE`, read at once. split: the same index written by `fathom index --split -o DIR`, its root read on load and each question\'s items as it needs them; its list shows ten results, and the rest on request. ranked: each query\'s top ten as the engine ranks them (client.search, k 10), which the split visit must equal. Bar (issue 63): index before the first answer <= 300 KB in <= 3 waves; everything before it <= 1.5 MB; first answer <= 10 s on the slow link and <= 1 s on loopback; a further query\'s index bytes median <= 100 KB; opening a file <= its text gzipped + 10 KB; a symbol\'s panel (its callers) and its impact, each a median <= 50 KB; the 50,000-file site\'s peak tab memory <= 256 MB.',
    projects,
  };
  const dir = fileURLToPath(new URL('../../bench/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}split.json`, `${JSON.stringify(out, null, 1)}\n`);
  for (const p of projects) {
    for (const v of [...Object.values(p.whole), ...Object.values(p.split)]) {
      expect(v.foreign_requests).toEqual([]);
      expect(v.top10[p.queries[0] as string]?.length).toBeGreaterThan(0);
    }
    // Both links read the same index and answer alike; the split bundle answers as the whole one does.
    expect(p.whole.slow_link?.top10).toEqual(p.whole.loopback?.top10);
    expect(p.split.loopback?.ranked).toEqual(p.whole.loopback?.ranked);
    expect(p.split.slow_link?.ranked).toEqual(p.whole.loopback?.ranked);
    // Graph questions answer over the split bundle as over the whole one.
    expect(p.split.loopback?.graph.map((g) => [g.symbol, g.impact.reached])).toEqual(p.whole.loopback?.graph.map((g) => [g.symbol, g.impact.reached]));
  }
}, 3_600_000);
