import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LogSink } from '../../src/runtime/log-sink.ts';
import { tempDir } from '../support/temp-dir.ts';

const dir = tempDir('tollway-sink-');
let n = 0;
function fileSink(): { sink: LogSink; path: string } {
  const path = join(dir, `out-${n++}.log`);
  return { sink: new LogSink(openSync(path, 'w')), path };
}
const flushed = (s: LogSink) => new Promise<Error | undefined>((resolve) => s.flush(resolve));

afterEach(() => vi.restoreAllMocks());

describe('log sink', () => {
  it('writes every line, in order, and calls flush back once they are all out', async () => {
    const { sink, path } = fileSink();
    const lines = Array.from({ length: 500 }, (_, i) => `{"n":${i},"s":"é ✓"}\n`);
    for (const l of lines) expect(sink.write(l)).toBe(true);
    expect(await flushed(sink)).toBeUndefined();
    expect(readFileSync(path, 'utf8')).toBe(lines.join(''));
    sink.close();
  });

  it('coalesces the lines queued during one write into the next write', async () => {
    const write = vi.spyOn(fs, 'write');
    const { sink, path } = fileSink();
    for (let i = 0; i < 1000; i++) sink.write(`line ${i}\n`);
    await flushed(sink);
    // The first line goes out at once; the 999 queued meanwhile go in one more write.
    expect(write.mock.calls.length).toBeLessThanOrEqual(2);
    expect(readFileSync(path, 'utf8').split('\n')).toHaveLength(1001);
    sink.close();
  });

  it('retries a full pipe (EAGAIN) and sends the rest of a partial write, losing and repeating nothing', async () => {
    const real = fs.write.bind(fs) as (...a: unknown[]) => void;
    let call = 0;
    vi.spyOn(fs, 'write').mockImplementation(((...args: unknown[]) => {
      const cb = args[args.length - 1] as (e: NodeJS.ErrnoException | null, n: number) => void;
      call++;
      if (call === 1) return void setImmediate(() => cb(Object.assign(new Error('again'), { code: 'EAGAIN' }), 0));
      if (call === 2) {
        // Only the first 5 bytes go out.
        const data = Buffer.isBuffer(args[1]) ? (args[1] as Buffer) : Buffer.from(String(args[1]));
        return real(args[0], data, 0, 5, null, cb);
      }
      return real(...args);
    }) as typeof fs.write);
    const { sink, path } = fileSink();
    sink.write('first line\n');
    sink.write('second line\n');
    await flushed(sink);
    expect(call).toBeGreaterThanOrEqual(3);
    expect(readFileSync(path, 'utf8')).toBe('first line\nsecond line\n');
    sink.close();
  });

  it('stops quietly when the destination is gone (EPIPE): no throw, later lines counted as dropped', async () => {
    vi.spyOn(fs, 'write').mockImplementation(((...args: unknown[]) => {
      const cb = args[args.length - 1] as (e: NodeJS.ErrnoException | null, n: number) => void;
      setImmediate(() => cb(Object.assign(new Error('broken pipe'), { code: 'EPIPE' }), 0));
    }) as typeof fs.write);
    const { sink } = fileSink();
    sink.write('a\n');
    expect((await flushed(sink))?.message).toBe('broken pipe');
    expect(sink.write('b\n')).toBe(false);
    expect(sink.dropped).toBe(1);
    sink.close();
  });

  it('drops lines beyond its bound while the destination does not take them', async () => {
    let release: (() => void) | null = null;
    const real = fs.write.bind(fs) as (...a: unknown[]) => void;
    vi.spyOn(fs, 'write').mockImplementation(((...args: unknown[]) => {
      // The first write is held back until the test releases it.
      if (release === null) release = () => real(...args);
      else real(...args);
    }) as typeof fs.write);
    const { sink, path } = fileSink();
    const mb = 'x'.repeat(1024 * 1024 - 1) + '\n';
    let accepted = 0;
    for (let i = 0; i < 40; i++) if (sink.write(mb)) accepted++;
    expect(accepted).toBeLessThan(40);
    expect(sink.dropped).toBe(40 - accepted);
    release!();
    await flushed(sink);
    expect(readFileSync(path).length).toBe(accepted * mb.length);
    sink.close();
  });

  it('writes what is still queued when the process exits', () => {
    const src = fileURLToPath(new URL('../../src/runtime/log-sink.ts', import.meta.url));
    // 2000 lines, then exit at once: all but the first are still queued behind the first asynchronous write.
    const code = `import { LogSink } from ${JSON.stringify(src)}; const s = new LogSink(1); for (let i = 0; i < 2000; i++) s.write('line ' + i + '\\n'); process.exit(0);`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\n').filter(Boolean);
    expect(new Set(lines).size).toBe(2000);
    // The first line was already handed to the thread pool when the process exited: it may land before or after
    // the synchronous flush (as with pino's own destination). Everything queued behind it is flushed in order.
    const queued = lines.filter((l) => l !== 'line 0');
    expect(queued).toEqual(Array.from({ length: 1999 }, (_, i) => `line ${i + 1}`));
  });
});
