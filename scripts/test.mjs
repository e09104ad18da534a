// npm test: the whole suite on SQLite, then again on PostgreSQL when TEST_DATABASE_URL is set, then, with
// TEST_DOCKER=1, the image and the compose stack on a Docker engine (vitest.docker.config.ts), once.
import { spawnSync } from 'node:child_process';

const extra = process.argv.slice(2);
const runs = [['sqlite', {}]];
if (process.env.TEST_DATABASE_URL) runs.push(['postgres', {}]);
else console.log('TEST_DATABASE_URL not set: running on SQLite only');
let failed = false;
for (const [dialect] of runs) {
  console.log(`\n=== test suite on ${dialect} ===`);
  const r = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...extra], {
    stdio: 'inherit',
    env: { ...process.env, TOLLWAY_TEST_DIALECT: dialect },
  });
  if (r.status !== 0) failed = true;
}
if (process.env.TEST_DOCKER === '1') {
  console.log('\n=== the image and the compose stack on Docker (TEST_DOCKER=1) ===');
  const r = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--config', 'vitest.docker.config.ts'], { stdio: 'inherit' });
  if (r.status !== 0) failed = true;
} else if (process.env.CI) {
  // CI must build and run the containers: a run without them is a failure, not a skip.
  console.log('\nFAILED: CI is set but TEST_DOCKER is not 1: the container stack test did not run (.ci/run sets it)');
  failed = true;
} else {
  console.log(
    '\nTEST_DOCKER not set: the image and compose stack test (test/deploy/stack/) was NOT run; it needs a Docker engine (bash deploy/ci/docker-up.sh, then TEST_DOCKER=1 with its output exported)',
  );
}
process.exit(failed ? 1 : 0);
