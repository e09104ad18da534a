#!/usr/bin/env -S node --max-semi-space-size=8 --min-semi-space-size=8
// Launcher: run the compiled gateway (dist/, built by every `npm install` — production ones included — and by
// `npm run build`) when it is current with the sources. In a development checkout (dev dependencies installed) a
// stale or missing dist/ falls back to the TypeScript sources through tsx's loader; an install without them never
// runs from source: it says how to build instead. Either way in this same process, so SIGTERM/SIGINT reach the
// gateway directly (a child process would be orphaned when this launcher is killed).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST, ROOT, distIsFresh } from '../scripts/dist.mjs';

function tsxInstalled() {
  try {
    createRequire(join(ROOT, 'package.json')).resolve('tsx/package.json');
    return true;
  } catch {
    return false;
  }
}

if (distIsFresh()) {
  await import(pathToFileURL(join(DIST, 'src', 'cli.js')).href);
} else if (tsxInstalled()) {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
} else {
  console.error('tollway: the compiled gateway (dist/) is missing or older than the sources: run `npm run build`');
  process.exit(1);
}
