// How to start a worker thread from a module's URL (a sibling, or a path relative to it): the compiled module (dist),
// or — when this code runs from
// source (tests, the tsx fallback of bin/tollway.mjs) — a two-line bootstrap that registers tsx in the thread and
// imports the TypeScript module (a worker's `--import` flag does not install module hooks in the thread).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface ThreadEntry {
  entry: URL | string;
  eval: boolean;
}

/** The URL of a sibling module of `base` (`name` without its extension), compiled or source as `base` is. */
export const siblingModule = (base: string, name: string): string =>
  new URL(`./${name}.${base.endsWith('.ts') ? 'ts' : 'js'}`, base).href;

/** `base`: the importing module's `import.meta.url`; `name`: a sibling module without its extension. */
export function threadEntry(base: string, name: string): ThreadEntry {
  const fromSource = base.endsWith('.ts');
  const url = new URL(`./${name}.${fromSource ? 'ts' : 'js'}`, base);
  if (!fromSource) return { entry: url, eval: false };
  // tsx's ESM API (its package exports map `./esm/api` → dist/esm/api/index.mjs for `import`).
  const api = pathToFileURL(
    join(dirname(createRequire(base).resolve('tsx/package.json')), 'dist/esm/api/index.mjs'),
  ).href;
  return {
    entry: `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(url.href)}); });`,
    eval: true,
  };
}
