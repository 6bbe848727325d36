// `make bench`'s first-visit bytes, written to bench/bytes.json for
// fathom-bench: what a reader's first visit to the built app (dist/) downloads
// before searching by meaning (the page, its scripts, the wasm module, the
// static table and the tokenizer), raw and as a server would send it gzipped
// or brotli-compressed; beside it, MiniLM's weights and MiniLM's own module,
// which are fetched only when MiniLM runs, and the modules' name sections,
// which are not shipped.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { expect, test } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dist = `${root}dist/`;
const MB = 1_000_000;

interface Size {
  raw: number;
  gzip: number;
  brotli: number;
}

function size(bytes: Uint8Array): Size {
  return {
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
    }).length,
  };
}

const sum = (sizes: Size[]): Size => ({
  raw: sizes.reduce((n, s) => n + s.raw, 0),
  gzip: sizes.reduce((n, s) => n + s.gzip, 0),
  brotli: sizes.reduce((n, s) => n + s.brotli, 0),
});

const mb = (s: Size): Record<string, number> => ({
  raw_mb: Math.round(s.raw / 1000) / 1000,
  gzip_mb: Math.round(s.gzip / 1000) / 1000,
  brotli_mb: Math.round(s.brotli / 1000) / 1000,
});

/** The module's custom sections by name, with their sizes: what a name section would add. */
function customSections(wasm: Uint8Array): Record<string, number> {
  const sections: Record<string, number> = {};
  let at = 8;
  const leb = (): number => {
    let value = 0;
    let shift = 0;
    for (;;) {
      const byte = wasm[at++] ?? 0;
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
      if (byte < 0x80) return value;
    }
  };
  while (at < wasm.length) {
    const id = wasm[at++];
    const length = leb();
    const end = at + length;
    if (id === 0) {
      const nameLength = leb();
      sections[new TextDecoder().decode(wasm.subarray(at, at + nameLength))] = length;
    }
    at = end;
  }
  return sections;
}

test('first-visit bytes of the built app', () => {
  const assets = readdirSync(`${dist}assets`);
  const minilm = (f: string): boolean => f.startsWith('fathom_wasm_minilm');
  const viewer = (f: string): boolean => f.startsWith('fathom_wasm_viewer');
  const moduleFile = assets.find((f) => f.endsWith('.wasm') && !minilm(f) && !viewer(f));
  const minilmFile = assets.find((f) => f.endsWith('.wasm') && minilm(f));
  const viewerFile = assets.find((f) => f.endsWith('.wasm') && viewer(f));
  // What the worker fetches of it: the module xz-compressed, and the decoder.
  const viewerXz = assets.find((f) => f.endsWith('.xz') && viewer(f));
  const xzDecoder = assets.find((f) => f.startsWith('xz-decompress') && f.endsWith('.js'));
  if (!moduleFile || !minilmFile || !viewerFile || !viewerXz || !xzDecoder) throw new Error('no engine, viewer or MiniLM module in dist/assets: run make build');
  const wasm = readFileSync(`${dist}assets/${moduleFile}`);
  const module = size(wasm);
  const minilmWasm = readFileSync(`${dist}assets/${minilmFile}`);
  // MiniLM's module and its bindings, fetched when MiniLM runs.
  const minilmModule = sum([
    size(minilmWasm),
    ...assets.filter((f) => minilm(f) && f.endsWith('.js')).map((f) => size(readFileSync(`${dist}assets/${f}`))),
  ]);
  const scripts = sum(
    ['index.html', ...assets.filter((f) => /\.(js|css)$/.test(f) && !f.startsWith('embed') && !minilm(f)).map((f) => `assets/${f}`)].map((f) =>
      size(readFileSync(`${dist}${f}`)),
    ),
  );
  const table = size(readFileSync(`${dist}model/minilm-l6-v2.static-v1.safetensors`));
  const tokenizer = size(readFileSync(`${dist}model/minilm-l6-v2.tokenizer.json`));
  const weights = size(readFileSync(`${dist}model/minilm-l6-v2.f16.safetensors`));
  const firstVisit = sum([module, scripts, table, tokenizer]);
  // A documentation site's reader (<fathom-explorer> over a bundle): the
  // element's module, its workers and the engine, before any query; the
  // static table and tokenizer only once a query is read for meaning (with
  // `model`), MiniLM never unless asked. The bundle is the site's own.
  const explorerScripts = sum(
    ['fathom-explorer.js', ...assets.filter((f) => f.endsWith('.js') && !f.startsWith('main') && !f.startsWith('minilm') && !f.startsWith('fathom_wasm') && f !== xzDecoder).map((f) => `assets/${f}`)].map((f) =>
      size(readFileSync(`${dist}${f}`)),
    ),
  );
  // Each module's bindings, loaded with it.
  const glue = (prefix: string) => size(readFileSync(`${dist}assets/${assets.find((f) => f.startsWith(prefix) && f.endsWith('.js'))}`));
  const explorer = sum([module, explorerScripts, glue('fathom_wasm-')]);
  // Over a split bundle the element loads the viewer (the engine without grammars) instead.
  const viewerWasm = readFileSync(`${dist}assets/${viewerFile}`);
  const viewerModule = size(viewerWasm);
  const viewerShipped = sum([size(readFileSync(`${dist}assets/${viewerXz}`)), size(readFileSync(`${dist}assets/${xzDecoder}`))]);
  const splitExplorer = sum([viewerShipped, explorerScripts, glue('fathom_wasm_viewer-')]);
  const report = {
    module: { ...mb(module), goal_gzip_mb: 6, custom_sections: customSections(wasm) },
    minilm_module_when_minilm_runs: { ...mb(minilmModule), custom_sections: customSections(minilmWasm) },
    scripts: mb(scripts),
    static_table: { ...mb(table), goal_raw_mb: 8 },
    tokenizer: mb(tokenizer),
    first_visit: mb(firstVisit),
    explorer_first_visit: mb(explorer),
    viewer_module: { ...mb(viewerModule), custom_sections: customSections(viewerWasm) },
    // As it ships: xz, with its decoder; the same on any host.
    viewer_module_xz_with_decoder: mb(viewerShipped),
    // Bar (issue 63): at most 1.5 MB gzipped before the first answer, the split bundle's items included.
    split_explorer_first_visit_before_its_index: mb(splitExplorer),
    explorer_after_a_query_by_meaning: mb(sum([explorer, table, tokenizer])),
    // The reference: the same visit when MiniLM (its weights and its module) came with it.
    first_visit_with_minilm: mb(sum([firstVisit, weights, minilmModule])),
    minilm_weights_when_minilm_runs: mb(weights),
  };
  writeFileSync(`${root}bench/bytes.json`, `${JSON.stringify(report, null, 1)}\n`);
  console.log(report);
  expect(report.module.custom_sections.name, 'the shipped module has no name section').toBeUndefined();
  expect(report.minilm_module_when_minilm_runs.custom_sections.name, 'nor has MiniLM\'s').toBeUndefined();
  expect(firstVisit.gzip).toBeLessThan(weights.raw + module.raw);
  expect(table.raw).toBeGreaterThan(MB);
  expect(explorer.gzip).toBeLessThan(firstVisit.gzip);
  expect(report.viewer_module.custom_sections.name, 'nor has the viewer').toBeUndefined();
  expect(viewerModule.gzip).toBeLessThan(module.gzip);
});
