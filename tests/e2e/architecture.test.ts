// The map's first level (issue 32, part 3): communities found by Louvain
// over IMPORTS and CALLS, named after their directory and best-connected
// definitions, the strength of the dependencies between them, and cycles.
// A project with two obvious layers (a web layer over a core) must come out
// as those two layers, in real headless Chromium.
import type { Page } from 'playwright-core';
import { describe, expect, inject, test } from 'vitest';
import { overviewDrawn, uploadZip, waitForState } from './app';
import { screenshot, sharedBrowser, withApp } from './browser';
import { zipFiles } from './fixtures';

const baseUrl = inject('baseUrl');
const browser = sharedBrowser();

/** Two layers: the web layer's three modules use each other and the core; the core's three use each other only. */
function layered(coreCallsBack: boolean): Record<string, string> {
  return {
    // A file at the top keeps `shop/` in the paths (a lone top folder is the archive's name, and stripped).
    'README.md': '# shop\n',
    // Test code: left out of the architecture until the reader asks for it.
    'tests/test_store.py': [
      'from shop.core.store import add_product, find_product',
      'def test_add_then_find():',
      '    add_product("pen", 1.5)',
      '    assert find_product("pen").price == 1.5',
      '',
    ].join('\n'),
    'shop/__init__.py': '',
    'shop/core/__init__.py': '',
    'shop/core/models.py': [
      'from shop.core.rules import check_price, check_name',
      'class Product:',
      '    def __init__(self, name, price):',
      '        check_name(name)',
      '        check_price(price)',
      '        self.name = name',
      '        self.price = price',
      'def make_product(name, price):',
      '    check_name(name)',
      '    return Product(name, price)',
      '',
    ].join('\n'),
    'shop/core/rules.py': [
      'def check_price(price):',
      '    if price < 0:',
      '        raise ValueError("negative price")',
      'def check_name(name):',
      '    if not name:',
      '        raise ValueError("empty name")',
      '',
    ].join('\n'),
    'shop/core/store.py': [
      'from shop.core.models import make_product, Product',
      'from shop.core.rules import check_price, check_name',
      ...(coreCallsBack ? ['from shop.web.views import render_product'] : []),
      'PRODUCTS = {}',
      'def add_product(name, price):',
      '    check_name(name)',
      '    check_price(price)',
      '    PRODUCTS[name] = make_product(name, price)',
      ...(coreCallsBack ? ['    render_product(PRODUCTS[name])'] : []),
      'def find_product(name):',
      '    check_name(name)',
      '    return PRODUCTS.get(name)',
      'def reprice(name, price):',
      '    check_price(price)',
      '    product = find_product(name)',
      '    product.price = price',
      '',
    ].join('\n'),
    'shop/web/__init__.py': '',
    'shop/web/views.py': [
      'from shop.web.forms import read_form, form_errors',
      'from shop.web.layout import page, table',
      'def render_product(product):',
      '    return page(table([product.name, product.price]))',
      'def product_page(request):',
      '    form = read_form(request)',
      '    errors = form_errors(form)',
      '    return page(table(errors))',
      '',
    ].join('\n'),
    'shop/web/forms.py': [
      'from shop.web.layout import escape',
      'def read_form(request):',
      '    return {key: escape(value) for key, value in request.items()}',
      'def form_errors(form):',
      '    return [escape(key) for key, value in form.items() if not value]',
      '',
    ].join('\n'),
    'shop/web/layout.py': [
      'def escape(text):',
      '    return str(text).replace("<", "&lt;")',
      'def table(rows):',
      '    return "".join(escape(row) for row in rows)',
      'def page(body):',
      '    return "<html>" + escape(body) + "</html>"',
      '',
    ].join('\n'),
    'shop/web/handlers.py': [
      'from shop.core.store import add_product, find_product',
      'from shop.web.forms import read_form',
      'from shop.web.views import render_product, product_page',
      'def create(request):',
      '    form = read_form(request)',
      '    add_product(form["name"], float(form["price"]))',
      '    return product_page(request)',
      'def show(request):',
      '    return render_product(find_product(read_form(request)["name"]))',
      '',
    ].join('\n'),
  };
}

interface Drawn {
  communities: { id: number; name: string }[];
  dependencies: { from: number; to: number; weight: number; cycle: boolean }[];
  members: Record<string, string>;
}

async function overview(page: Page): Promise<Drawn> {
  await page.getByTestId('tab-map').click();
  const map = page.getByTestId('graph-view');
  await expect.poll(() => map.getAttribute('data-communities'), { timeout: 20_000 }).toMatch(/^\d+$/);
  expect(await map.getAttribute('data-level')).toBe('architecture');
  return page.getByTestId('map-overview').evaluate((root) => {
    const graph = root.querySelector('[data-testid="overview-graph"]')!;
    const communities = [...graph.querySelectorAll<SVGGElement>('.ov-community')].map((g) => ({ id: Number(g.dataset.community), name: g.dataset.name ?? '' }));
    const dependencies = [...graph.querySelectorAll<SVGGElement>('.ov-dependency')].map((g) => ({
      from: Number(g.dataset.from), to: Number(g.dataset.to), weight: Number(g.dataset.weight), cycle: g.dataset.cycle === 'true',
    }));
    const members: Record<string, string> = {};
    const fathom = (globalThis as unknown as { fathomMap?: { view: { communityOfFile(path: string): string } } }).fathomMap;
    for (const path of ['shop/web/views.py', 'shop/web/forms.py', 'shop/web/layout.py', 'shop/web/handlers.py', 'shop/core/models.py', 'shop/core/rules.py', 'shop/core/store.py']) {
      members[path] = fathom?.view.communityOfFile(path) ?? '';
    }
    return { communities, dependencies, members };
  });
}

describe('the architecture map', () => {
  test('recovers two layers as two communities, with the dependency between them and no cycle', async () => {
    await withApp(browser(), baseUrl, async ({ page }) => {
      await uploadZip(page, 'layers.zip', zipFiles(layered(false)));
      await waitForState(page, 'ready');
      const drawn = await overview(page);
      expect(drawn.communities.length).toBe(2);
      const web = drawn.members['shop/web/views.py']!;
      const core = drawn.members['shop/core/store.py']!;
      expect(web).not.toBe(core);
      for (const file of ['shop/web/forms.py', 'shop/web/layout.py', 'shop/web/handlers.py']) expect(drawn.members[file], file).toBe(web);
      for (const file of ['shop/core/models.py', 'shop/core/rules.py']) expect(drawn.members[file], file).toBe(core);
      // Named after their directory (the fewest segments that tell them
      // apart, the shared `shop/` said once) and their best-connected
      // definitions, each name whole and under 40 characters.
      const name = (id: string) => drawn.communities.find((c) => String(c.id) === id)?.name ?? '';
      expect(name(web)).toMatch(/^web: /);
      expect(name(core)).toMatch(/^core: .*check_/);
      for (const c of drawn.communities) expect(c.name.length, c.name).toBeLessThan(40);
      const summary = await page.getByTestId('overview-summary').textContent();
      expect(summary).toContain('under shop/');
      expect(summary).toContain('1 test file left out');
      // The web layer depends on the core, not the other way round.
      expect(drawn.dependencies).toEqual([{ from: Number(web), to: Number(core), weight: expect.any(Number), cycle: false }]);
      expect(drawn.dependencies[0]!.weight).toBeGreaterThanOrEqual(2);
      expect(await page.getByTestId('overview-summary').textContent()).toContain('no cycles');
      for (const width of [1280, 1920]) {
        await page.setViewportSize({ width, height: 900 });
        await page.evaluate(() => window.dispatchEvent(new Event('resize')));
        // Laid out in layers by ELK and scaled to its panel, the drawing
        // spans at least 80% of it one way, unless it is already drawn at
        // its largest (2.5 times its size: two boxes, here), and its labels
        // are never drawn smaller than 0.8 times their size.
        const drawn = await overviewDrawn(page);
        expect(drawn.scale >= 2.45 || drawn.fill >= 0.8, JSON.stringify(drawn)).toBe(true);
        expect(drawn.scale).toBeGreaterThanOrEqual(0.8);
        await screenshot(page, `architecture-layers-${width}`);
      }
      // Every label is drawn whole: its text fits inside its box.
      const clipped = await page.locator('.ov-community').evaluateAll((groups) =>
        groups.filter((g) => {
          const [box, text] = [g.querySelector('rect')!.getBBox(), g.querySelector('.ov-name') as SVGTextContentElement];
          return text.getComputedTextLength() > box.width;
        }).length);
      expect(clipped).toBe(0);

      // Left out, the test file is in no community; asked for, it joins
      // the community of the code it calls, and the layers stay as they were.
      const map = page.getByTestId('graph-view');
      const testCommunity = () => page.evaluate(() =>
        (globalThis as unknown as { fathomMap?: { view: { communityOfFile(path: string): string } } }).fathomMap?.view.communityOfFile('tests/test_store.py'));
      expect(await map.getAttribute('data-tests')).toBe('left-out');
      expect(await testCommunity()).toBe('-1');
      await page.getByTestId('map-tests').check();
      await expect.poll(() => map.getAttribute('data-tests')).toBe('included');
      expect(await page.getByTestId('overview-summary').textContent()).toContain('tests included (1 file)');
      expect(await testCommunity()).not.toBe('-1');
      await screenshot(page, 'architecture-with-tests');
      await page.getByTestId('map-tests').uncheck();
      await expect.poll(() => map.getAttribute('data-tests')).toBe('left-out');
      expect(await testCommunity()).toBe('-1');

      // A community opens on the map: its files and definitions, in focus and coloured by community.
      await page.locator(`.ov-community[data-community="${core}"]`).focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => map.getAttribute('data-level')).toBe('files');
      expect(await map.getAttribute('data-community')).toBe(core);
      expect(Number(await map.getAttribute('data-focus'))).toBeGreaterThanOrEqual(3);
      expect(await page.getByTestId('map-colour').inputValue()).toBe('community');
      for (const width of [1280, 1920]) {
        await page.setViewportSize({ width, height: 900 });
        await page.getByTestId('graph-view').evaluate(() => window.dispatchEvent(new Event('resize')));
        await page.waitForTimeout(300);
        await screenshot(page, `architecture-community-${width}`);
      }
    });
  });

  test('marks the cycle when the core calls back into the web layer', async () => {
    await withApp(browser(), baseUrl, async ({ page }) => {
      await uploadZip(page, 'layers-cycle.zip', zipFiles(layered(true)));
      await waitForState(page, 'ready');
      const drawn = await overview(page);
      expect(drawn.communities.length).toBe(2);
      expect(drawn.dependencies.length).toBe(2);
      expect(drawn.dependencies.every((d) => d.cycle)).toBe(true);
      const cycles = page.getByTestId('overview-cycles');
      // Each cycle is a short chain along its dependencies, back to its start.
      expect(await cycles.textContent()).toMatch(/Communities: (web|core) → (web|core) → (web|core)/);
      expect(await cycles.locator('[data-directories]').getAttribute('data-directories')).toBe('shop/core shop/web');
      expect(await cycles.locator('[data-directories]').textContent()).toMatch(/^Directories: (core → web → core|web → core → web)$/);
      expect(await page.locator('.ov-community.ov-in-cycle').count()).toBe(2);
      await screenshot(page, 'architecture-cycle');
    });
  });
});
