import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Browser end-to-end tests against the BUILT app in dist/ (see tests/e2e/global-setup.ts).
export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    environment: 'node',
    include: ['tests/e2e/**/*.test.ts'],
    globalSetup: ['tests/e2e/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Each file drives its own Chromium; running them one at a time keeps timings sane.
    fileParallelism: false,
  },
});
