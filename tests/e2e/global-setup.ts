// Serves the built dist/ folder with vite's preview server on a free port of
// 127.0.0.1 and hands its URL to the tests as inject('baseUrl').
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { preview } from 'vite';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
  }
}

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await preview({
    configFile: `${repoRoot}/vite.config.ts`,
    logLevel: 'warn',
    preview: { host: '127.0.0.1', port: 0, strictPort: true, open: false },
  });
  const distDir = server.config.build.outDir;
  if (!existsSync(`${distDir}/index.html`)) {
    await server.close();
    throw new Error(`${distDir}/index.html is missing: build the app first (make, or npm run build once pkg/ exists).`);
  }
  const baseUrl = server.resolvedUrls?.local[0];
  if (!baseUrl) {
    await server.close();
    throw new Error('the preview server did not report its URL');
  }
  project.provide('baseUrl', baseUrl);
  return () => server.close();
}
