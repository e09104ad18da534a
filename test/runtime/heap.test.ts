// The node flags the gateway is started with live in one list (src/runtime/heap.ts); the start paths that
// cannot import it — the npm start script, the launcher's shebang and the Dockerfile — must carry the same flags.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NODE_HEAP_FLAGS } from '../../src/runtime/heap.ts';

const root = new URL('../../', import.meta.url);

describe('gateway node flags', () => {
  it('npm start passes every flag to node', () => {
    const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { scripts: Record<string, string> };
    const start = pkg.scripts.start!.split(/\s+/);
    expect(start[0]).toBe('node');
    for (const f of NODE_HEAP_FLAGS) expect(start.slice(1, start.indexOf('bin/tollway.mjs'))).toContain(f);
  });

  it('the tollway launcher passes every flag in its shebang', () => {
    const first = readFileSync(new URL('bin/tollway.mjs', root), 'utf8').split('\n')[0]!;
    expect(first.startsWith('#!/usr/bin/env -S node')).toBe(true);
    for (const f of NODE_HEAP_FLAGS) expect(first.split(/\s+/)).toContain(f);
  });

  it('the container image starts node with every flag', () => {
    const entry = /^ENTRYPOINT (\[.*\])$/m.exec(readFileSync(new URL('Dockerfile', root), 'utf8'))?.[1];
    const argv = JSON.parse(entry ?? '[]') as string[];
    expect(argv[0]).toBe('node');
    for (const f of NODE_HEAP_FLAGS) expect(argv).toContain(f);
  });
});
