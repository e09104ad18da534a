// The operator console's bundle: console/ (Preact + uPlot) → dist/console/{index.html,app.js,app.css}, by esbuild;
// and the customer portal's, from console/portal/ (sharing the console's components) → portal.{html,js,css}.
// Run by scripts/build.mjs, and by the server at start when the bundle is missing or older than its sources
// (src/console/assets.ts), so `npm start` and the tests serve a current console without an extra step.
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const FILES = ['index.html', 'app.js', 'app.css', 'portal.html', 'portal.js', 'portal.css'];
const STAMP = '.built';

function newestMtime(dir) {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

export const consoleOut = (root) => join(root, 'dist', 'console');

/** True when dist/console was built after the last change under console/. */
export function consoleIsFresh(root) {
  const stamp = join(consoleOut(root), STAMP);
  return existsSync(stamp) && statSync(stamp).mtimeMs >= newestMtime(join(root, 'console'));
}

/** Bundle and minify; every file is written beside its target and renamed over it, so a reader never sees half. */
export async function buildConsole(root) {
  const { build } = await import('esbuild');
  const src = join(root, 'console');
  const out = consoleOut(root);
  const result = await build({
    entryPoints: { app: join(src, 'src', 'main.tsx'), portal: join(src, 'portal', 'main.tsx') },
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['chrome109', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: out,
    write: false,
    logLevel: 'warning',
    legalComments: 'none',
    absWorkingDir: root,
  });
  mkdirSync(out, { recursive: true });
  const tag = `${process.pid}.${Date.now()}`;
  const put = (path, data) => {
    writeFileSync(`${path}.${tag}`, data);
    renameSync(`${path}.${tag}`, path);
  };
  for (const f of result.outputFiles) put(f.path, f.contents);
  put(join(out, 'index.html'), readFileSync(join(src, 'index.html')));
  put(join(out, 'portal.html'), readFileSync(join(src, 'portal', 'index.html')));
  put(join(out, STAMP), `${new Date().toISOString()}\n`);
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  await buildConsole(join(dirname(fileURLToPath(import.meta.url)), '..'));
}
