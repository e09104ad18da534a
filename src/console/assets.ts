// The console's built files, held in memory: built first (scripts/build-console.mjs, esbuild) when dist/console is
// missing or older than console/, whether the gateway runs from dist/ or from source.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface ConsoleAsset {
  type: string;
  body: Buffer;
}

interface ConsoleBuilder {
  FILES: string[];
  consoleOut(root: string): string;
  consoleIsFresh(root: string): boolean;
  buildConsole(root: string): Promise<void>;
}

const TYPES: Record<string, string> = { html: 'text/html; charset=utf-8', js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };

/** The package root: the nearest directory above this file holding console/index.html (src/ or dist/src/). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'console', 'index.html')) && existsSync(join(dir, 'scripts', 'build-console.mjs'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('console sources (console/index.html) not found above ' + fileURLToPath(import.meta.url));
    dir = up;
  }
}

let building: Promise<void> | null = null;

/** index.html, app.js and app.css by file name. */
export async function consoleAssets(): Promise<Map<string, ConsoleAsset>> {
  const root = packageRoot();
  const builder = (await import(pathToFileURL(join(root, 'scripts', 'build-console.mjs')).href)) as ConsoleBuilder;
  if (!builder.consoleIsFresh(root)) await (building ??= builder.buildConsole(root).finally(() => (building = null)));
  const out = builder.consoleOut(root);
  const assets = new Map<string, ConsoleAsset>();
  for (const f of builder.FILES) assets.set(f, { type: TYPES[f.split('.').pop()!] ?? 'application/octet-stream', body: readFileSync(join(out, f)) });
  return assets;
}
