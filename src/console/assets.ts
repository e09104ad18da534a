// The console's built files, held in memory. From a checkout (console/ sources present) the bundle is built first
// (scripts/build-console.mjs, esbuild) when dist/console is missing or older than console/, whether the gateway runs
// from dist/ or from source; an image carrying only dist/ serves the bundle built into it.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface ConsoleAsset {
  type: string;
  body: Buffer;
}

interface ConsoleBuilder {
  consoleIsFresh(root: string): boolean;
  buildConsole(root: string): Promise<void>;
}

// The portal (customer members) is built beside the console: portal.html, portal.js, portal.css.
const FILES = ['index.html', 'app.js', 'app.css', 'portal.html', 'portal.js', 'portal.css'];
const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

/** The package root: the nearest directory above this file (src/console/ or dist/src/console/) with a package.json. */
function packageRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (let dir = here; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${here}`);
  }
}

let building: Promise<void> | null = null;

/** index.html, app.js and app.css by file name. */
export async function consoleAssets(): Promise<Map<string, ConsoleAsset>> {
  const root = packageRoot();
  const script = join(root, 'scripts', 'build-console.mjs');
  if (existsSync(join(root, 'console', 'index.html')) && existsSync(script)) {
    const builder = (await import(pathToFileURL(script).href)) as ConsoleBuilder;
    if (!builder.consoleIsFresh(root)) await (building ??= builder.buildConsole(root).finally(() => (building = null)));
  }
  const out = join(root, 'dist', 'console');
  const assets = new Map<string, ConsoleAsset>();
  for (const f of FILES) {
    const path = join(out, f);
    if (!existsSync(path))
      throw new Error(`The console's ${path} is missing: run npm run build, or set TOLLWAY_CONSOLE=false`);
    assets.set(f, { type: TYPES[f.split('.').pop()!]!, body: readFileSync(path) });
  }
  return assets;
}
