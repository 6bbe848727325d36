import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const fromRoot = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

/**
 * Writes dist/precache.json: every file of the built app (pages, scripts,
 * the wasm, the static table, the demo), for the service worker
 * (www/public/sw.js) to cache on install so the app works offline after its
 * first load. MiniLM's weights (45 MB) and its module (burn and its GPU
 * stack) are left to the first time MiniLM runs, which caches them as it
 * fetches them: a visit that never runs MiniLM never downloads them.
 */
function precacheList(): Plugin {
  return {
    name: 'fathom-precache-list',
    apply: 'build',
    closeBundle() {
      const dist = fromRoot('./dist');
      const files: string[] = [];
      const walk = (dir: string): void => {
        for (const name of readdirSync(dir)) {
          const path = `${dir}/${name}`;
          if (statSync(path).isDirectory()) walk(path);
          else files.push(relative(dist, path));
        }
      };
      walk(dist);
      const skip = new Set(['sw.js', 'precache.json', 'model/minilm-l6-v2.f16.safetensors']);
      // MiniLM's module and its workers' script are fetched only when MiniLM runs.
      const minilm = (f: string): boolean => f.startsWith('assets/fathom_wasm_minilm') || f.startsWith('assets/minilm-worker');
      const list = ['./', ...files.filter((f) => !skip.has(f) && !minilm(f)).sort().map((f) => `./${f}`)];
      writeFileSync(`${dist}/precache.json`, `${JSON.stringify(list, null, 1)}\n`);
    },
  };
}

// The app lives in www/; the wasm bindings (pkg/, generated) and the client
// library (web/) sit beside it. `base: './'` keeps every URL in dist/ relative,
// so the build works from any static server path.
export default defineConfig({
  root: fromRoot('./www'),
  base: './',
  publicDir: fromRoot('./www/public'),
  plugins: [precacheList()],
  build: {
    outDir: fromRoot('./dist'),
    emptyOutDir: true,
    target: 'es2022',
    // Keep the wasm binary a separate file, whatever its size.
    assetsInlineLimit: (file) => (file.endsWith('.wasm') ? false : undefined),
    rollupOptions: {
      // The app, and the documented example page of <fathom-explorer>.
      input: { main: fromRoot('./www/index.html'), embed: fromRoot('./www/embed.html') },
      output: {
        // The component's script keeps one name, for sites that copy it.
        entryFileNames: (chunk) => (chunk.name === 'embed' ? 'fathom-explorer.js' : 'assets/[name]-[hash].js'),
      },
    },
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
