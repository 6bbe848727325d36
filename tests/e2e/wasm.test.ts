// Properties of the built engine module itself (pkg/, as the app ships it).
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';

const WASM = new URL('../../pkg/fathom_wasm_bg.wasm', import.meta.url);
/** The module as the linker wrote it, before wasm-bindgen removed its function names. */
const LINKED = `${process.env.CARGO_TARGET_DIR ?? `${process.env.HOME}/.cache/fathom/target`}/wasm32-unknown-unknown/release/fathom_wasm.wasm`;

describe('the engine module', () => {
  test('runs its static constructors once, not around every export', () => {
    // wasm-ld wraps each export in a call to every static constructor (named
    // `<export>.command_export`) unless the module calls them itself, which
    // fathom_wasm's start function does. With the wrappers every engine call
    // and every dropped JsValue re-ran them: the browser was 1000x slower.
    // The wrappers' names are in the linked module's name section.
    const linked = readFileSync(LINKED);
    expect(WebAssembly.Module.customSections(new WebAssembly.Module(linked), 'name').length).toBe(1);
    expect(linked.includes(Buffer.from('.command_export'))).toBe(false);
    // The shipped module calls them from its start function.
    expect(readFileSync(WASM).includes(Buffer.from('__wbindgen_start'))).toBe(true);
  });

  test('ships without its name section', () => {
    // 6 MB of function names nobody but a profiler reads (`make wasm WASM_NAMES=keep`).
    const shipped = new WebAssembly.Module(readFileSync(WASM));
    expect(WebAssembly.Module.customSections(shipped, 'name').length).toBe(0);
  });
});
