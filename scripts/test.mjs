// npm test: the whole suite on SQLite, then the files that use a store again on PostgreSQL when TEST_DATABASE_URL
// is set (scripts/store-tests.mjs: the others do not depend on the dialect), then, with TEST_DOCKER=1, the image and
// the compose stack on a Docker engine (vitest.docker.config.ts), once.
// Every run also writes a JSON report: the summary lists the slowest test files of each run, and the last lines
// printed name each failed test with its first error lines: CI logs are often kept by their tail only, and the
// failures are what that tail must show.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { classify } from './store-tests.mjs';

const extra = process.argv.slice(2);
const reports = mkdtempSync(join(tmpdir(), 'tollway-test-report-'));
const failures = [];
/** Per run, its test files by wall time, slowest first. */
const timings = [];
const SLOWEST = 20;

/** Does the command line name files or folders (positional filters) rather than options only? */
function namesFiles(args) {
  return args.some(
    (a, i) => !a.startsWith('-') && !(i > 0 && args[i - 1].startsWith('--') && !args[i - 1].includes('=')),
  );
}

function run(label, args, env) {
  console.log(`\n=== ${label} ===`);
  const out = join(reports, `${label.replace(/\W+/g, '-')}.json`);
  const r = spawnSync(
    process.execPath,
    [
      'node_modules/vitest/vitest.mjs',
      'run',
      ...args,
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${out}`,
    ],
    {
      stdio: 'inherit',
      env: { ...process.env, ...env },
    },
  );
  const report = existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')) : null;
  if (report) {
    const files = (report.testResults ?? []).map((f) => ({
      name: f.name.replace(`${process.cwd()}/`, ''),
      ms: (f.endTime ?? 0) - (f.startTime ?? 0),
    }));
    timings.push({ label, files: files.sort((a, b) => b.ms - a.ms) });
  }
  if (r.status === 0) return;
  const before = failures.length;
  if (report) {
    for (const file of report.testResults ?? []) {
      const name = file.name.replace(`${process.cwd()}/`, '');
      const failed = (file.assertionResults ?? []).filter((t) => t.status === 'failed');
      for (const t of failed)
        failures.push({ label, where: `${name} > ${t.fullName}`, why: (t.failureMessages ?? []).join('\n') });
      if (failed.length === 0 && file.status === 'failed')
        failures.push({ label, where: name, why: file.message ?? '' });
    }
  }
  if (failures.length === before)
    failures.push({
      label,
      where: '(the run itself)',
      why: `vitest exited with ${r.status ?? r.signal} and no test failed: an unhandled error, printed above under "Unhandled Errors"`,
    });
}

run('test suite on sqlite', extra, { TOLLWAY_TEST_DIALECT: 'sqlite' });
if (process.env.TEST_DATABASE_URL) {
  // Files named on the command line run as named; otherwise only the files that use a store.
  const files = namesFiles(extra) ? [] : storeFiles();
  run('store tests on postgres', [...extra, ...files], { TOLLWAY_TEST_DIALECT: 'postgres' });
} else console.log('TEST_DATABASE_URL not set: running on SQLite only');
if (process.env.TEST_DOCKER === '1') {
  run('the image and the compose stack on Docker (TEST_DOCKER=1)', ['--config', 'vitest.docker.config.ts'], {});
} else if (process.env.CI) {
  // CI must build and run the containers: a run without them is a failure, not a skip.
  failures.push({
    label: 'stack',
    where: '(not run)',
    why: 'CI is set but TEST_DOCKER is not 1: the container stack test did not run (.ci/run sets it)',
  });
} else {
  console.log(
    '\nTEST_DOCKER not set: the image and compose stack test (test/deploy/stack/) was NOT run; it needs a Docker engine (bash deploy/ci/docker-up.sh, then TEST_DOCKER=1 with its output exported)',
  );
}
rmSync(reports, { recursive: true, force: true });
for (const t of timings) {
  console.log(`\n=== slowest test files: ${t.label} (${t.files.length} files) ===`);
  for (const f of t.files.slice(0, SLOWEST)) console.log(`${(f.ms / 1000).toFixed(1).padStart(8)} s  ${f.name}`);
}
if (failures.length > 0) {
  console.log(`\n=== FAILED: ${failures.length} ===`);
  for (const f of failures) {
    console.log(`\n[${f.label}] ${f.where}`);
    console.log(
      f.why
        .split('\n')
        .filter((l) => l.trim() !== '')
        .slice(0, 12)
        .map((l) => `    ${l}`)
        .join('\n'),
    );
  }
}
process.exit(failures.length > 0 ? 1 : 0);

/** The files that use a store; a file that reaches the store's code without the rule seeing it fails the run. */
function storeFiles() {
  const c = classify(process.cwd());
  console.log(
    `\n${c.store.length} test files use a store and run on PostgreSQL too; ${c.independent.length} ran on SQLite only`,
  );
  if (c.unmarked.length > 0) {
    failures.push({
      label: 'store tests',
      where: c.unmarked.join(', '),
      why: 'reaches the store code (src/store/, process-life, compose, cli) without test/support/store.ts: it would be left out of the PostgreSQL pass. Open its store through test/support/store.ts (or the harness), or add `// store-independent: <why>` if it uses only pure helpers (scripts/store-tests.mjs)',
    });
  }
  return c.store;
}
