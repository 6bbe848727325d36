// Properties of the built engine module itself (pkg/, as the app ships it).
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';

const WASM = new URL('../../pkg/fathom_wasm_bg.wasm', import.meta.url);

describe('the engine module', () => {
  test('runs its static constructors once, not around every export', () => {
    // wasm-ld wraps each export in a call to every static constructor (named
    // `<export>.command_export`) unless the module calls them itself, which
    // fathom_wasm's start function does. With the wrappers every engine call
    // and every dropped JsValue re-ran them: the browser was 1000x slower.
    const bytes = readFileSync(WASM);
    expect(WebAssembly.Module.customSections(new WebAssembly.Module(bytes), 'name').length).toBe(1);
    expect(bytes.includes(Buffer.from('.command_export'))).toBe(false);
    expect(bytes.includes(Buffer.from('__wbindgen_start'))).toBe(true);
  });
});
