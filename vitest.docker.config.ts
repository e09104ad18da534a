import { defineConfig } from 'vitest/config';

// The container test alone (test/deploy/stack/): it builds images and runs the compose stack on a Docker engine,
// one step after another, so one file, no parallelism, and timeouts for image builds. `npm test` runs it once,
// after the suite, when TEST_DOCKER=1 (scripts/test.mjs).
export default defineConfig({
  test: {
    include: ['test/deploy/stack/**/*.test.ts'],
    testTimeout: 1_200_000,
    hookTimeout: 300_000,
    pool: 'forks',
    fileParallelism: false,
    // Each step's name and outcome in the CI log as it ends.
    reporters: ['verbose'],
  },
});
