import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';

const SRC = fileURLToPath(new URL('../../bench/proc-stats.ts', import.meta.url));

// A bench child as bench/procs.ts starts one: it answers {type:'stats'}; here it also collects on demand.
const CHILD = `import { answerStats } from ${JSON.stringify(SRC)};
answerStats();
process.on('message', (m) => { if (m.type === 'gc') { m.kind === 'minor' ? globalThis.gc({ type: 'minor' }) : globalThis.gc(); process.send({ type: 'done' }); } });
process.send({ type: 'ready' });`;

let child: ChildProcess | undefined;
afterEach(() => child?.kill());

function next<T>(c: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: { type: string }) => {
      if (m.type !== type) return;
      c.off('message', on);
      resolve(m as T);
    };
    c.on('message', on);
  });
}

async function majorGcs(c: ChildProcess): Promise<number> {
  const answer = next<{ majorGcs: number }>(c, 'stats');
  c.send({ type: 'stats' });
  return (await answer).majorGcs;
}

async function collect(c: ChildProcess, kind: 'major' | 'minor'): Promise<void> {
  const done = next(c, 'done');
  c.send({ type: 'gc', kind });
  await done;
}

describe('bench child stats', () => {
  it('count the full collections the process made (what bench:instructions warms up to), not the scavenges', async () => {
    const c = spawn(process.execPath, ['--import', 'tsx', '--expose-gc', '--input-type=module', '-e', CHILD], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child = c;
    await next(c, 'ready');
    const before = await majorGcs(c);
    await collect(c, 'minor');
    await collect(c, 'minor');
    // The observer hears of a collection a turn later: give it time to hear of the scavenges before reading.
    await new Promise((r) => setTimeout(r, 100));
    expect(await majorGcs(c)).toBe(before);
    await collect(c, 'major');
    await vi.waitFor(async () => expect(await majorGcs(c)).toBe(before + 1));
  });
});
