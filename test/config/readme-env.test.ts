// Every variable src/config reads is documented: in the README configuration table, or (the poller's tuning, which
// that table points to) in docs/operations.md's task poller settings table; so is every variable an upstream's folder
// declares for the config to read (its base URL, keys and query rate).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UPSTREAMS } from '../../src/adapters/upstreams.ts';

const root = join(import.meta.dirname, '..', '..');
const source = readdirSync(join(root, 'src', 'config'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => readFileSync(join(root, 'src', 'config', f), 'utf8'))
  .join('\n');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const operations = readFileSync(join(root, 'docs', 'operations.md'), 'utf8');

describe('README configuration table', () => {
  it('lists every environment variable the config reads', () => {
    const names = new Set<string>();
    for (const m of source.matchAll(/env\.([A-Z][A-Z0-9_]+)/g)) names.add(m[1]!);
    for (const m of source.matchAll(/(?:intVar|urlVar|boolVar|secretVar|val)\(env, '([A-Z][A-Z0-9_]+)'/g))
      names.add(m[1]!);
    for (const u of UPSTREAMS) {
      names.add(u.baseUrlEnv);
      for (const f of u.keyFields) names.add(f.env);
      if (u.queryRate) names.add(u.queryRate.env);
    }
    expect(names.size).toBeGreaterThan(15);
    const section = readme.split(/^## Configuration$/m)[1]?.split(/^## /m)[0] ?? '';
    const poller = operations.split(/^### Task poller settings$/m)[1]?.split(/^#/m)[0] ?? '';
    expect(section).toContain('docs/operations.md#task-poller-settings');
    const missing = [...names].filter((n) => !section.includes(`\`${n}\``) && !poller.includes(`| \`${n}\``));
    expect(missing).toEqual([]);
  });
});
