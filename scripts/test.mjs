// npm test: the whole suite on SQLite, then again on PostgreSQL when TEST_DATABASE_URL is set.
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
process.exit(failed ? 1 : 0);
