#!/usr/bin/env node
// Import circles among src/'s modules (type-only imports count: a circle is a reading circle too).
// Prints each strongly connected group of files; exits 1 when there is one. Usage: node scripts/import-circles.mjs
// [dir]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(process.argv[2] ?? 'src');
const files = [];
const walk = (d) => {
  for (const n of readdirSync(d)) {
    const p = join(d, n);
    if (statSync(p).isDirectory()) walk(p);
    else if (/\.(ts|tsx|mts)$/.test(n) && !n.endsWith('.d.ts')) files.push(p);
  }
};
walk(root);
const known = new Set(files);
const spec = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/g;
// A lazy `import('./x.ts')` is an arrow too: a module loaded later still reads its loader's types.
const lazy = /\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;
const edges = new Map(files.map((f) => [f, []]));
for (const f of files) {
  const text = readFileSync(f, 'utf8');
  for (const m of [...text.matchAll(spec), ...text.matchAll(lazy)]) {
    const target = resolve(dirname(f), m[1]);
    if (known.has(target)) edges.get(f).push(target);
  }
}
// Tarjan's strongly connected components.
let index = 0;
const idx = new Map();
const low = new Map();
const stack = [];
const on = new Set();
const groups = [];
const visit = (v) => {
  idx.set(v, index);
  low.set(v, index++);
  stack.push(v);
  on.add(v);
  for (const w of edges.get(v)) {
    if (!idx.has(w)) {
      visit(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
  }
  if (low.get(v) === idx.get(v)) {
    const g = [];
    let w;
    do {
      w = stack.pop();
      on.delete(w);
      g.push(w);
    } while (w !== v);
    if (g.length > 1) groups.push(g);
  }
};
for (const f of files) if (!idx.has(f)) visit(f);
for (const g of groups)
  console.log(
    g
      .map((f) => relative(process.cwd(), f))
      .sort()
      .join('  '),
  );
console.log(`${groups.length} import circle(s), ${groups.reduce((n, g) => n + g.length, 0)} files in them`);
process.exitCode = groups.length > 0 ? 1 : 0;
