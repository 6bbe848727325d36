// Launches the system Chromium through playwright-core and opens the app in a
// fresh context that records every request, so tests can prove the page never
// talks to another origin.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-quic',
];
/** A real WebGPU device on the CPU (SwiftShader): correct, and very slow. */
const WEBGPU_ARGS = ['--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader'];

const ARTIFACTS_DIR = fileURLToPath(new URL('../.artifacts/', import.meta.url));

/** Chromium with WebGPU (SwiftShader), or with none at all (`webgpu: false`). */
export function launchBrowser(options: { webgpu?: boolean; selfSignedTls?: boolean } = {}): Promise<Browser> {
  const args = options.webgpu === false ? [...CHROMIUM_ARGS] : [...CHROMIUM_ARGS, ...WEBGPU_ARGS];
  // `make bench`'s HTTP/2 host has a certificate made for the run.
  if (options.selfSignedTls) args.push('--ignore-certificate-errors');
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args });
}

/**
 * One Chromium for a test file: launched before its tests, closed after.
 * Returns the getter for it.
 */
export function sharedBrowser(options: { webgpu?: boolean } = {}): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchBrowser(options);
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('the browser is launched in beforeAll');
    return browser;
  };
}

export interface AppPage {
  page: Page;
  /** Every URL requested by the page and its workers, in order. */
  requests: string[];
  /** Uncaught exceptions thrown in the page. */
  pageErrors: string[];
  /** Requested URLs that are neither same-origin nor data:/blob:. */
  foreignRequests(): string[];
  close(): Promise<void>;
}

/**
 * Opens the app. Background embedding is off (`?embed=off`) unless asked for:
 * on SwiftShader it would keep the CPU busy for minutes.
 */
export async function openApp(
  browser: Browser,
  baseUrl: string,
  options: { embed?: boolean; serviceWorker?: boolean } = {},
): Promise<AppPage> {
  const url = new URL(baseUrl);
  if (!options.embed) url.searchParams.set('embed', 'off');
  if (!options.serviceWorker) url.searchParams.set('sw', 'off');
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const requests: string[] = [];
  const pageErrors: string[] = [];
  context.on('request', (request) => requests.push(request.url()));
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(url.href);
  const origin = url.origin;
  return {
    page,
    requests,
    pageErrors,
    foreignRequests: () =>
      requests.filter((url) => !url.startsWith('data:') && !url.startsWith('blob:') && new URL(url).origin !== origin),
    close: () => context.close(),
  };
}

/**
 * Saves a full-page screenshot to tests/.artifacts/<name>.png for humans to
 * look at. `timeout`: where SwiftShader's WebGPU keeps the GPU process busy,
 * a frame can take longer than Playwright's default 30 s.
 */
export async function screenshot(page: Page, name: string, timeout?: number): Promise<void> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS_DIR}${name}.png`, fullPage: true, ...(timeout ? { timeout } : {}) });
}

/** Runs a scenario in a fresh page, then checks it made no foreign request and threw nothing. */
export async function withApp(
  browser: Browser,
  url: string,
  run: (app: AppPage) => Promise<void>,
  options: { embed?: boolean; serviceWorker?: boolean } = {},
): Promise<void> {
  const app = await openApp(browser, url, options);
  try {
    await run(app);
    expect(app.foreignRequests()).toEqual([]);
    expect(app.pageErrors).toEqual([]);
  } finally {
    await app.close();
  }
}
