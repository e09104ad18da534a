// Where the compiled gateway lives and whether it is current with the sources (shared by the build script
// and bin/tollway.mjs, so a stale dist/ is never run after a source change).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = join(ROOT, 'dist');
export const STAMP = join(DIST, '.built');
export const SOURCE_DIRS = ['src', 'simulator', 'bench'];

function newestMtime(dir) {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** The newest modification time of anything the build reads (sources, fixtures, tsconfig, package.json). */
export function sourcesMtime() {
  let newest = 0;
  for (const d of SOURCE_DIRS) if (existsSync(join(ROOT, d))) newest = Math.max(newest, newestMtime(join(ROOT, d)));
  for (const f of ['tsconfig.json', 'tsconfig.build.json', 'package.json'])
    newest = Math.max(newest, statSync(join(ROOT, f)).mtimeMs);
  return newest;
}

/** True when dist/ was built after the last change to any source. */
export function distIsFresh() {
  return existsSync(STAMP) && statSync(STAMP).mtimeMs >= sourcesMtime();
}
