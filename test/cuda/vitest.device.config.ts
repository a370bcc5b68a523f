// Vitest configuration for the GPU machine (npm run gpu:check): the project's settings without the
// renderer's plugins, whose packages are not carried there. Only test/cuda and the conformance suite run.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/cuda/**/*.test.ts', 'test/conformance/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: ['default', './test/support/skip-guard.ts'],
  },
});
