// The docs-site package (issue 32, part 5): `make build` packs
// <fathom-explorer> for npm (scripts/npm-package.mjs). Checked here: what the
// tarball holds (module, assets, types, the Custom Elements Manifest), that
// a consumer type-checks against it, and that it installs into a fresh
// Material for MkDocs site, built by MkDocs itself, whose reader reaches the
// explorer by instant navigation, searches and reads code, with no request
// leaving the site; and into a fresh Docusaurus site the same way.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { fathom, repoRoot } from './cli';
import { screenshot, sharedBrowser, withApp } from './browser';
import { type Served, serveDir } from './serve';

const browser = sharedBrowser({ webgpu: false });
const NPM = join(repoRoot, 'dist/npm');
const cache = process.env.FATHOM_CACHE_DIR ?? join(homedir(), '.cache/fathom');

let work: string;
let unpacked: string;

/** The package as npm would install it: the tarball `make build` wrote, unpacked. */
function tarball(): string {
  const found = readdirSync(NPM).filter((f) => /^fathom-explorer-.*\.tgz$/.test(f));
  expect(found.length, `dist/npm holds ${found.join(', ')}`).toBe(1);
  return join(NPM, found[0]!);
}

/** The element's query attribute ran on the bundle: the best result cites `compute_total`, and a click shows its code. */
async function answersFromTheBundle(explorer: Locator): Promise<void> {
  const first = explorer.getByTestId('search-result').first();
  await expect.poll(() => first.locator('.cite').textContent(), { timeout: 30_000 }).toMatch(/^pkg\/calc\.py:36-\d+$/);
  await first.click();
  await expect.poll(() => explorer.getByTestId('code-path').getAttribute('data-path')).toBe('pkg/calc.py');
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'fathom-docsite-'));
  unpacked = join(work, 'node_modules/fathom-explorer');
  mkdirSync(unpacked, { recursive: true });
  execFileSync('tar', ['xzf', tarball(), '-C', unpacked, '--strip-components=1']);
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('the npm package', () => {
  test('holds the module, its assets, types and a Custom Elements Manifest, with no absolute URL', () => {
    const pkg = JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg.name).toBe('fathom-explorer');
    expect(pkg.type).toBe('module');
    for (const field of ['main', 'types', 'customElements'] as const) {
      expect(existsSync(join(unpacked, String(pkg[field]))), `${field}: ${String(pkg[field])}`).toBe(true);
    }
    const manifest = JSON.parse(readFileSync(join(unpacked, String(pkg.customElements)), 'utf8')) as {
      modules: { path: string; declarations: { tagName?: string; attributes?: { name: string }[]; events?: { name: string }[] }[] }[];
    };
    const element = manifest.modules.flatMap((m) => m.declarations.map((d) => ({ ...d, path: m.path }))).find((d) => d.tagName === 'fathom-explorer');
    expect(element?.path).toBe('fathom-explorer.js');
    expect(element?.attributes?.map((a) => a.name)).toEqual(expect.arrayContaining(['bundle', 'archive', 'query', 'model', 'minilm', 'theme']));
    expect(element?.events?.map((e) => e.name)).toEqual(expect.arrayContaining(['fathom-ready', 'fathom-error']));
    // Every script it ships loads what it needs relative to itself.
    const scripts = ['fathom-explorer.js', ...readdirSync(join(unpacked, 'assets')).filter((f) => f.endsWith('.js')).map((f) => `assets/${f}`)];
    expect(scripts.length).toBeGreaterThan(2);
    for (const script of scripts) {
      const text = readFileSync(join(unpacked, script), 'utf8');
      expect(text, script).not.toMatch(/["'`]\/(assets|model)\//);
      // Namespace identifiers are names, never fetched: SVG's, and EMF's in ELK's model. A
      // library's licence comment (`/*! … */`, kept by the minifier) names its authors' sites.
      const names = new Set(['http://www.w3.org', 'http://www.eclipse.org']);
      const code = text.replace(/\/\*![\s\S]*?\*\//g, '');
      expect([...code.matchAll(/https?:\/\/[\w.-]+/g)].map((m) => m[0]).filter((u) => !names.has(u)), script).toEqual([]);
    }
    // The static table for `model`, and not MiniLM's 45 MB of weights.
    expect(readdirSync(join(unpacked, 'model')).sort()).toEqual(['minilm-l6-v2.static-v1.safetensors', 'minilm-l6-v2.tokenizer.json']);
  });

  test('a page that uses the element type-checks against the shipped types', () => {
    writeFileSync(join(work, 'page.ts'), [
      "import type { FathomExplorer } from 'fathom-explorer';",
      "const element: FathomExplorer | null = document.querySelector('fathom-explorer');",
      "element?.search('how are routes registered');",
      'const files: number | undefined = element?.summary?.files;',
      "element?.addEventListener('fathom-ready', () => console.log(files));",
      '',
    ].join('\n'));
    writeFileSync(join(work, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'es2022', module: 'esnext', moduleResolution: 'bundler', lib: ['es2022', 'dom', 'dom.iterable'], strict: true, noEmit: true, types: [] },
      files: ['page.ts'],
    }));
    execFileSync(join(repoRoot, 'node_modules/.bin/tsc'), ['-p', join(work, 'tsconfig.json')], { cwd: work, encoding: 'utf8' });
    // And a mistake is caught: the types are real, not `any`.
    writeFileSync(join(work, 'page.ts'), "import type { FathomExplorer } from 'fathom-explorer';\ndeclare const e: FathomExplorer;\ne.search(42);\n");
    let said = '';
    try {
      execFileSync(join(repoRoot, 'node_modules/.bin/tsc'), ['-p', join(work, 'tsconfig.json')], { cwd: work, encoding: 'utf8', stdio: 'pipe' });
    } catch (error) {
      said = String((error as { stdout?: string }).stdout);
    }
    expect(said).toMatch(/page\.ts\(3,10\): error TS2345: Argument of type 'number' is not assignable to parameter of type 'string'/);
  });
});

describe('a Material for MkDocs site', () => {
  let server: Served | undefined;
  let url: string;

  beforeAll(async () => {
    execFileSync(join(repoRoot, 'scripts/docs-sites.sh'), { stdio: 'inherit', timeout: 10 * 60_000 });
    const project = join(work, 'mkdocs');
    const docs = join(project, 'docs');
    mkdirSync(docs, { recursive: true });
    // The recipe: the package in the docs folder, the bundle beside the pages.
    cpSync(unpacked, join(docs, 'fathom'), { recursive: true });
    fathom(['index', 'tests/fixtures/mini-py-js', '-o', join(docs, 'repo.fathom'), '--no-embed']);
    writeFileSync(join(docs, 'index.md'), '# mini-py-js\n\nRead the code in the [explorer](explore.md).\n');
    writeFileSync(join(docs, 'explore.md'), '# Explore\n\n<fathom-explorer data-testid="explorer" bundle="../repo.fathom" query="compute_total"></fathom-explorer>\n');
    const site = join(project, 'site');
    mkdirSync(site);
    server = await serveDir(site);
    url = server.url;
    writeFileSync(join(project, 'mkdocs.yml'), [
      'site_name: mini-py-js',
      `site_url: ${url}`,
      'theme:',
      '  name: material',
      '  font: false',
      '  features: [navigation.instant]',
      'extra_javascript:',
      '  - path: fathom/fathom-explorer.js',
      '    type: module',
      'nav:',
      '  - Home: index.md',
      '  - Explore: explore.md',
      '',
    ].join('\n'));
    execFileSync(join(cache, 'docs-sites/mkdocs/bin/mkdocs'), ['build', '--quiet', '--site-dir', site], { cwd: project, stdio: 'inherit', timeout: 5 * 60_000 });
  }, 15 * 60_000);

  afterAll(() => server?.close());

  test('instant navigation brings the explorer in, which searches and shows code, all from the site', async () => {
    await withApp(browser(), url, async ({ page, requests }) => {
      await page.evaluate(() => Object.assign(globalThis, { stillTheSamePage: true }));
      await page.locator('.md-content').getByRole('link', { name: 'explorer' }).click();
      const explorer = page.getByTestId('explorer');
      await expect.poll(() => explorer.getAttribute('state'), { timeout: 60_000 }).toBe('ready');
      // Material swapped the page in place: no reload.
      expect(await page.evaluate(() => 'stillTheSamePage' in globalThis)).toBe(true);
      expect(new URL(page.url()).pathname).toBe('/explore/');
      await answersFromTheBundle(explorer);
      await screenshot(page, 'docsite-mkdocs');
      await page.setViewportSize({ width: 1024, height: 800 });
      await screenshot(page, 'docsite-mkdocs-1024');
      await page.setViewportSize({ width: 1440, height: 900 });
      // Away and back again, still without a reload: the element starts afresh.
      await page.goBack();
      await expect.poll(() => new URL(page.url()).pathname).toBe('/');
      await page.locator('.md-content').getByRole('link', { name: 'explorer' }).click();
      await expect.poll(() => page.getByTestId('explorer').getAttribute('state'), { timeout: 60_000 }).toBe('ready');
      expect(await page.evaluate(() => 'stillTheSamePage' in globalThis)).toBe(true);
      // The bundle came from the site; MiniLM was never fetched.
      expect(requests.some((r) => r.endsWith('/repo.fathom'))).toBe(true);
      expect(requests.filter((r) => r.includes('minilm'))).toEqual([]);
    });
  });
});

describe('a Docusaurus site', () => {
  let server: Served | undefined;
  let url: string;

  beforeAll(async () => {
    execFileSync(join(repoRoot, 'scripts/docs-sites.sh'), { stdio: 'inherit', timeout: 10 * 60_000 });
    const project = join(work, 'docusaurus');
    mkdirSync(join(project, 'docs'), { recursive: true });
    // The generator's packages, installed once outside the clone.
    symlinkSync(join(cache, 'docs-sites/docusaurus/node_modules'), join(project, 'node_modules'));
    // The recipe: the package in static/fathom/, the bundle in static/, the module loaded on every page.
    cpSync(unpacked, join(project, 'static/fathom'), { recursive: true });
    fathom(['index', 'tests/fixtures/mini-py-js', '-o', join(project, 'static/repo.fathom'), '--no-embed']);
    writeFileSync(join(project, 'docusaurus.config.js'), [
      'export default {',
      "  title: 'mini-py-js',",
      "  url: 'http://127.0.0.1',",
      "  baseUrl: '/',",
      "  onBrokenLinks: 'throw',",
      "  presets: [['classic', { docs: { routeBasePath: '/' }, blog: false, pages: false }]],",
      "  scripts: [{ src: '/fathom/fathom-explorer.js', type: 'module' }],",
      '};',
      '',
    ].join('\n'));
    writeFileSync(join(project, 'docs/index.md'), '---\nslug: /\nsidebar_position: 1\n---\n# mini-py-js\n\nRead the code in the [explorer](./explore.mdx).\n');
    writeFileSync(join(project, 'docs/explore.mdx'), '---\nsidebar_position: 2\n---\n# Explore\n\n<fathom-explorer data-testid="explorer" bundle="/repo.fathom" query="compute_total"></fathom-explorer>\n');
    const site = join(project, 'build');
    execFileSync(join(project, 'node_modules/.bin/docusaurus'), ['build', '--out-dir', site], { cwd: project, stdio: 'ignore', timeout: 10 * 60_000 });
    server = await serveDir(site);
    url = server.url;
  }, 20 * 60_000);

  afterAll(() => server?.close());

  test("the site's own navigation brings the explorer in, which searches and shows code, all from the site", async () => {
    await withApp(browser(), url, async ({ page, requests }) => {
      await page.evaluate(() => Object.assign(globalThis, { stillTheSamePage: true }));
      // A client-side route change: React renders the element into the page.
      await page.locator('article a[href="/explore"]').first().click();
      const explorer = page.getByTestId('explorer');
      await expect.poll(() => explorer.getAttribute('state'), { timeout: 60_000 }).toBe('ready');
      expect(await page.evaluate(() => 'stillTheSamePage' in globalThis)).toBe(true);
      await answersFromTheBundle(explorer);
      await screenshot(page, 'docsite-docusaurus');
      await page.setViewportSize({ width: 1024, height: 800 });
      await screenshot(page, 'docsite-docusaurus-1024');
      expect(requests.some((r) => r.endsWith('/repo.fathom'))).toBe(true);
      expect(requests.filter((r) => r.includes('minilm'))).toEqual([]);
    });
  });
});
