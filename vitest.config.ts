import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The container stack has its own run (vitest.docker.config.ts, TEST_DOCKER=1).
    exclude: [...configDefaults.exclude, 'test/deploy/stack/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // PostgreSQL schemas and SQLite files are per test file, so files can run in parallel.
    fileParallelism: true,
    maxWorkers: 4,
  },
});
