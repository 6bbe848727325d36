import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const fromRoot = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

// The app lives in www/; the wasm bindings (pkg/, generated) and the client
// library (web/) sit beside it. `base: './'` keeps every URL in dist/ relative,
// so the build works from any static server path.
export default defineConfig({
  root: fromRoot('./www'),
  base: './',
  publicDir: fromRoot('./www/public'),
  build: {
    outDir: fromRoot('./dist'),
    emptyOutDir: true,
    target: 'es2022',
    // Keep the wasm binary a separate file, whatever its size.
    assetsInlineLimit: (file) => (file.endsWith('.wasm') ? false : undefined),
  },
  worker: {
    format: 'es',
  },
  server: {
    fs: {
      allow: [fromRoot('./www'), fromRoot('./web'), fromRoot('./pkg'), fromRoot('./node_modules')],
    },
  },
});
