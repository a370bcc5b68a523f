// Vitest configuration for bench/cuda/jobs-check.sh on the GPU machine: the project's settings without the
// renderer's plugins (not carried there), for the file jobs' tests whose [needs-gpu] cases run there.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/pipeline/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
