// npm run build (also run by `npm install` through `prepare` — `npm install --omit=dev` too, typescript being a
// dependency — and before `npm start`/`npm run bench` when stale): compile src/, simulator/ and bench/ to dist/ with
// tsc (emit only; tsconfig.build.json) and copy the simulator's fixtures beside them.
// `--if-stale` skips the compile when dist/ is newer than every source.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { DIST, ROOT, STAMP, distIsFresh } from './dist.mjs';

if (process.argv.includes('--if-stale') && distIsFresh()) process.exit(0);

let tsc;
try {
  tsc = createRequire(join(ROOT, 'package.json')).resolve('typescript/bin/tsc');
} catch {
  console.error('build: typescript is not installed (it is a dependency): run npm install');
  process.exit(1);
}
rmSync(DIST, { recursive: true, force: true });
const r = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit', cwd: ROOT });
if (r.status !== 0) {
  rmSync(DIST, { recursive: true, force: true });
  process.exit(r.status ?? 1);
}
const fixtures = join(ROOT, 'simulator', 'fixtures');
if (existsSync(fixtures)) cpSync(fixtures, join(DIST, 'simulator', 'fixtures'), { recursive: true });
writeFileSync(STAMP, `${new Date().toISOString()}\n`);
await import('./build-console.mjs').then((c) => c.buildConsole(ROOT));
