// Properties of the built modules themselves (pkg/, as the app ships them):
// the engine, and MiniLM's, which the page loads only when MiniLM runs.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';

const TARGET = `${process.env.CARGO_TARGET_DIR ?? `${process.env.HOME}/.cache/fathom/target`}/wasm32-unknown-unknown/release`;

const compile = (bytes: Buffer): WebAssembly.Module => new WebAssembly.Module(new Uint8Array(bytes));
/** The names a module exports. */
const exportsOf = (bytes: Buffer): string[] => WebAssembly.Module.exports(compile(bytes)).map((e) => e.name);

describe.each(['fathom_wasm', 'fathom_wasm_minilm'])('the module %s', (name) => {
  /** As the app ships it, and as the linker wrote it, before wasm-bindgen removed its function names. */
  const shipped = (): Buffer => readFileSync(new URL(`../../pkg/${name}_bg.wasm`, import.meta.url));
  const linked = (): Buffer => readFileSync(`${TARGET}/${name}.wasm`);

  test('runs its static constructors once, not around every export', () => {
    // wasm-ld wraps each export in a call to every static constructor (named
    // `<export>.command_export`) unless the module calls them itself, which
    // both crates' start functions do. With the wrappers every engine call
    // and every dropped JsValue re-ran them: the browser was 1000x slower.
    // The wrappers' names are in the linked module's name section.
    const bytes = linked();
    expect(WebAssembly.Module.customSections(compile(bytes), 'name').length).toBe(1);
    expect(bytes.includes(Buffer.from('.command_export'))).toBe(false);
    // The shipped module calls them from its start function.
    expect(shipped().includes(Buffer.from('__wbindgen_start'))).toBe(true);
  });

  test('ships without its name section', () => {
    // Megabytes of function names nobody but a profiler reads (`make wasm WASM_NAMES=keep`).
    expect(WebAssembly.Module.customSections(compile(shipped()), 'name').length).toBe(0);
  });
});

test('the engine module holds none of MiniLM, which has a module of its own', () => {
  // burn, cubecl, wgpu, naga and gemm are most of MiniLM's module; the engine,
  // which every visit downloads, must not carry them. Their function names
  // and source paths are in the linked modules.
  const engine = readFileSync(`${TARGET}/fathom_wasm.wasm`);
  const minilm = readFileSync(`${TARGET}/fathom_wasm_minilm.wasm`);
  // (naga's name is no marker: Unicode's script names hold "Devanagari".)
  for (const crate of ['burn_', 'cubecl', 'wgpu', 'gemm', 'fathom_embed']) {
    expect(minilm.includes(Buffer.from(crate)), `${crate} in MiniLM's module`).toBe(true);
    expect(engine.includes(Buffer.from(crate)), `${crate} in the engine module`).toBe(false);
  }
  // And each shipped module exports what the worker calls on it, and only that.
  const shipped = (name: string): Buffer => readFileSync(new URL(`../../pkg/${name}_bg.wasm`, import.meta.url));
  expect(exportsOf(shipped('fathom_wasm_minilm'))).toEqual(expect.arrayContaining(['minilm_load', 'minilm_embed', 'minilm_embedQuery']));
  expect(exportsOf(shipped('fathom_wasm_minilm')).some((e) => e.startsWith('workspace_'))).toBe(false);
  expect(exportsOf(shipped('fathom_wasm'))).toContain('workspace_search');
  expect(exportsOf(shipped('fathom_wasm')).some((e) => e.startsWith('minilm_'))).toBe(false);
});

test('the viewer is the engine without grammars: the same exports, none of tree-sitter\'s languages, and far smaller', () => {
  // (Its bindings are its own, pkg/fathom_wasm_viewer.js: it imports less.)
  const engine = readFileSync(new URL('../../pkg/fathom_wasm_bg.wasm', import.meta.url));
  const viewer = readFileSync(new URL('../../pkg/fathom_wasm_viewer_bg.wasm', import.meta.url));
  // One set of bindings serves both: the worker instantiates either with them.
  expect(exportsOf(viewer).sort()).toEqual(exportsOf(engine).sort());
  // A grammar's parse tables carry its node kinds' names; the engine has them, the viewer none.
  for (const kind of ['translation_unit', 'compilation_unit', 'heredoc_body', 'raw_string_literal']) {
    expect(engine.includes(Buffer.from(kind)), `${kind} in the engine`).toBe(true);
    expect(viewer.includes(Buffer.from(kind)), `${kind} in the viewer`).toBe(false);
  }
  expect(viewer.length).toBeLessThan(engine.length / 2);
});

test('the viewer ships xz-compressed, and inflates to the module itself with the decoder the worker uses', async () => {
  const viewer = readFileSync(new URL('../../pkg/fathom_wasm_viewer_bg.wasm', import.meta.url));
  const packed = readFileSync(new URL('../../pkg/fathom_wasm_viewer_bg.wasm.xz', import.meta.url));
  const { XzReadableStream } = await import('xz-decompress');
  const inflated = await new Response(new XzReadableStream(new Blob([packed]).stream())).arrayBuffer();
  expect(Buffer.from(inflated).equals(viewer)).toBe(true);
  // Smaller than the module gzipped, which is what a compressing host would send.
  expect(packed.length).toBeLessThan(gzipSync(viewer, { level: 9 }).length * 0.75);
});
