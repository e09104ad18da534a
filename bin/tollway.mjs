#!/usr/bin/env -S node --max-semi-space-size=8
// Launcher: run the compiled gateway (dist/, built by `npm install` and `npm run build`) when it is current
// with the sources, otherwise the TypeScript sources through tsx's loader — in this same process either way,
// so SIGTERM/SIGINT reach the gateway directly (a child process would be orphaned when this launcher is killed).
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST, distIsFresh } from '../scripts/dist.mjs';

if (distIsFresh()) {
  await import(pathToFileURL(join(DIST, 'src', 'cli.js')).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
