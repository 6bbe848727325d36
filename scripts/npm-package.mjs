#!/usr/bin/env node
// The <fathom-explorer> npm package, from the built app (`make build` runs
// this after vite): dist/npm/fathom-explorer/ holds
// - fathom-explorer.js and the assets it loads (its workers, the engine's
//   wasm; MiniLM's module and worker, fetched only when a page asks for
//   MiniLM), every URL relative to the module;
// - model/: the static table and the tokenizer, for `model="…/model"`
//   (a few MB, read only when a query is searched by meaning); MiniLM's
//   45 MB of weights are not shipped;
// - types/: the element's declarations and everything they name, emitted by
//   tsc from the sources (web/tsconfig.types.json);
// - custom-elements.json, the Custom Elements Manifest, written by
//   @custom-elements-manifest/analyzer from web/src/explorer.ts and named by
//   package.json's `customElements`;
// - README.md, the recipes for a plain page, MkDocs and Docusaurus.
// `npm pack` then writes dist/npm/fathom-explorer-<version>.tgz.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const out = join(dist, 'npm');
const stage = join(out, 'fathom-explorer');
const MODEL_FILES = ['minilm-l6-v2.static-v1.safetensors', 'minilm-l6-v2.tokenizer.json'];

function cargoField(name) {
  const manifest = readFileSync(join(root, 'Cargo.toml'), 'utf8');
  const section = manifest.split('[workspace.package]')[1] ?? '';
  const found = new RegExp(`^${name}\\s*=\\s*"([^"]+)"`, 'm').exec(section);
  if (!found) throw new Error(`Cargo.toml's [workspace.package] has no ${name}`);
  return found[1];
}

if (!existsSync(join(dist, 'fathom-explorer.js'))) throw new Error('dist/fathom-explorer.js is missing: run vite build first');
rmSync(out, { recursive: true, force: true });
mkdirSync(join(stage, 'assets'), { recursive: true });

// The module and what it loads; the app's own page script and styles stay out.
cpSync(join(dist, 'fathom-explorer.js'), join(stage, 'fathom-explorer.js'));
for (const name of readdirSync(join(dist, 'assets'))) {
  if (name.startsWith('main-') || name.startsWith('embed-')) continue;
  cpSync(join(dist, 'assets', name), join(stage, 'assets', name));
}
mkdirSync(join(stage, 'model'));
for (const name of MODEL_FILES) cpSync(join(dist, 'model', name), join(stage, 'model', name));

// Types, emitted from the sources, with the wasm bindings' declarations they name.
execFileSync('npx', ['tsc', '-p', join(root, 'web/tsconfig.types.json'), '--outDir', join(stage, 'types')], { cwd: root, stdio: 'inherit' });
mkdirSync(join(stage, 'types/pkg'), { recursive: true });
// wasm-bindgen's declarations name `Symbol.dispose`: they bring the library that has it, so a page on ES2022 type-checks.
for (const name of ['fathom_wasm.d.ts', 'fathom_wasm_minilm.d.ts']) {
  writeFileSync(join(stage, 'types/pkg', name), `/// <reference lib="esnext.disposable" />\n${readFileSync(join(root, 'pkg', name), 'utf8')}`);
}

// The manifest, read off the element's source, its module renamed to the shipped one.
// (The analyzer reads --outdir relative to where it runs.)
execFileSync('npx', ['cem', 'analyze', '--globs', 'web/src/explorer.ts', '--outdir', relative(root, stage), '--quiet'], { cwd: root, stdio: 'inherit' });
const manifestPath = join(stage, 'custom-elements.json');
writeFileSync(manifestPath, readFileSync(manifestPath, 'utf8').replaceAll('web/src/explorer.ts', 'fathom-explorer.js'));

const version = cargoField('version');
const pkg = {
  name: 'fathom-explorer',
  version,
  description: 'Fathom\'s code explorer as one custom element: search, code, callers and callees over a prebuilt index, entirely in the reader\'s browser.',
  license: cargoField('license'),
  type: 'module',
  main: './fathom-explorer.js',
  module: './fathom-explorer.js',
  types: './types/web/src/explorer.d.ts',
  exports: {
    '.': { types: './types/web/src/explorer.d.ts', default: './fathom-explorer.js' },
    './custom-elements.json': './custom-elements.json',
    './model/*': './model/*',
    './assets/*': './assets/*',
    './package.json': './package.json',
  },
  customElements: 'custom-elements.json',
  files: ['fathom-explorer.js', 'assets', 'model', 'types', 'custom-elements.json', 'README.md'],
  // Importing the module defines the element.
  sideEffects: ['./fathom-explorer.js'],
  keywords: ['web-components', 'custom-element', 'code-search', 'documentation', 'wasm', 'static-site'],
};
writeFileSync(join(stage, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
cpSync(join(root, 'web/README.npm.md'), join(stage, 'README.md'));

execFileSync('npm', ['pack', '--pack-destination', out, '--silent'], { cwd: stage, stdio: ['ignore', 'inherit', 'inherit'] });
console.log(`npm package: dist/npm/fathom-explorer-${version}.tgz`);
