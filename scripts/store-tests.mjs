// Which test files use a store, for the PostgreSQL pass of `npm test` (scripts/test.mjs): the rest do not depend on
// the store's dialect and run once, on the SQLite pass.
//
// A file uses a store when it reaches test/support/store.ts (every store a test opens comes from there: freshStore,
// and the harness through it) by its relative imports, directly or through other test files, or names the dialect's
// variables itself (TOLLWAY_TEST_DIALECT, TEST_DATABASE_URL). A second rule guards the first: a file that reaches
// the store's code (src/store/, or what opens a store: src/process-life.ts, src/compose.ts, src/cli.ts) without
// either is reported, so a store test written some other way cannot drop out of the PostgreSQL pass unseen. A file
// that uses only pure helpers of src/store/ says so with the line `// store-independent: <why>`.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;
const STORE_SUPPORT = 'test/support/store.ts';
const DIALECT_VARS = /TOLLWAY_TEST_DIALECT|TEST_DATABASE_URL/;
const STORE_CODE = [/^src\/store\//, /^src\/process-life\.ts$/, /^src\/compose\.ts$/, /^src\/cli\.ts$/];
const MARKER = /^\/\/ store-independent: \S/m;

function walk(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (p.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

/** The test files vitest.config.ts includes (test/deploy/stack runs apart), relative to `root`, sorted. */
export function testFiles(root) {
  return walk(join(root, 'test'))
    .map((p) => relative(root, p))
    .filter((p) => !p.startsWith('test/deploy/stack/'))
    .sort();
}

/** `{ store, independent, unmarked }`: the files of each kind, and those the guard reports. */
export function classify(root, files = testFiles(root)) {
  const imports = new Map();
  const importsOf = (file) => {
    let list = imports.get(file);
    if (list) return list;
    list = [];
    imports.set(file, list);
    let text = '';
    try {
      text = readFileSync(join(root, file), 'utf8');
    } catch {
      return list;
    }
    for (const m of text.matchAll(IMPORT)) list.push(relative(root, resolve(root, dirname(file), m[1] ?? m[2])));
    return list;
  };
  /** Every file `file` reaches by relative imports, itself included. */
  const reach = (file) => {
    const seen = new Set([file]);
    const todo = [file];
    while (todo.length) {
      const f = todo.pop();
      if (!f.startsWith('test/')) continue; // src/ is reached, not walked: the rules name its entry points
      for (const g of importsOf(f)) {
        if (seen.has(g)) continue;
        seen.add(g);
        todo.push(g);
      }
    }
    return seen;
  };
  const out = { store: [], independent: [], unmarked: [] };
  for (const file of files) {
    const reached = reach(file);
    const texts = [...reached].filter((f) => f.startsWith('test/')).map((f) => readFileSync(join(root, f), 'utf8'));
    if (reached.has(STORE_SUPPORT) || texts.some((t) => DIALECT_VARS.test(t))) {
      out.store.push(file);
      continue;
    }
    out.independent.push(file);
    const touches = [...reached].some((f) => STORE_CODE.some((r) => r.test(f)));
    if (touches && !MARKER.test(readFileSync(join(root, file), 'utf8'))) out.unmarked.push(file);
  }
  return out;
}
