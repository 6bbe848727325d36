import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// `make bench`'s browser measurements against the built app in dist/.
export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    environment: 'node',
    include: ['tests/bench/**/*.test.ts'],
    globalSetup: ['tests/e2e/global-setup.ts'],
    testTimeout: 1_800_000,
    fileParallelism: false,
  },
});
