import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The container stack has its own run (vitest.docker.config.ts, TEST_DOCKER=1).
    exclude: [...configDefaults.exclude, 'test/deploy/stack/**'],
    // Generous: a test that starts processes, threads or a browser can take many times longer on a loaded host, and
    // a timeout here only guards against a hang (speed is the benchmarks' business).
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // expect.poll (the browser tests' waits): the same reasoning.
    expect: { poll: { timeout: 30_000 } },
    pool: 'forks',
    // PostgreSQL schemas and SQLite files are per test file, so files can run in parallel.
    fileParallelism: true,
    maxWorkers: 4,
  },
});
