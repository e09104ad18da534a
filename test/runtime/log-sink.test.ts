import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LogSink, modeOf } from '../../src/runtime/log-sink.ts';
import { runProcess } from '../support/run-process.ts';
import { tempDir } from '../support/temp-dir.ts';

const dir = tempDir('tollway-sink-');
let n = 0;
function fileSink(max?: number): { sink: LogSink; path: string } {
  const path = join(dir, `out-${n++}.log`);
  return { sink: new LogSink(openSync(path, 'w'), 'sync', max), path };
}
const flushed = (s: LogSink) => new Promise<Error | undefined>((resolve) => s.flush(resolve));
const SRC = fileURLToPath(new URL('../../src/runtime/log-sink.ts', import.meta.url));

/** Run `code` (an ES module with LogSink imported) in a child whose stdout is a pipe; resolves with what it wrote. */
function child(code: string, readAfterMs = 0): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const p = spawn(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', `import { LogSink } from ${JSON.stringify(SRC)};\n${code}`],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const out: Buffer[] = [];
  let err = '';
  p.stderr.on('data', (c: Buffer) => (err += c));
  // Not reading stdout for a while lets the pipe fill: the child's writes then meet a reader that lags.
  if (readAfterMs > 0) {
    p.stdout.pause();
    setTimeout(() => p.stdout.resume(), readAfterMs);
  }
  p.stdout.on('data', (c: Buffer) => out.push(c));
  return new Promise((resolve) =>
    p.on('close', (status) => resolve({ status, stdout: Buffer.concat(out).toString('utf8'), stderr: err })),
  );
}

afterEach(() => vi.restoreAllMocks());

describe('log sink', () => {
  it('writes synchronously to files and devices, through a stream to pipes and sockets', async () => {
    const path = join(dir, `mode-${n++}.log`);
    expect(modeOf(openSync(path, 'w'))).toBe('sync');
    expect(modeOf(openSync('/dev/null', 'w'))).toBe('sync');
    const r = await runProcess(process.execPath, [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `import { modeOf } from ${JSON.stringify(SRC)}; process.stderr.write(modeOf(1));`,
    ]);
    expect(r.stderr).toBe('stream');
  });

  it('writes every line, in order, and calls flush back once they are all out', async () => {
    const { sink, path } = fileSink();
    const lines = Array.from({ length: 500 }, (_, i) => `{"n":${i},"s":"é ✓"}\n`);
    for (const l of lines) expect(sink.write(l)).toBe(true);
    expect(await flushed(sink)).toBeUndefined();
    expect(readFileSync(path, 'utf8')).toBe(lines.join(''));
    sink.close();
  });

  it('writes the lines of one event-loop turn in one write, never through the thread pool', async () => {
    const writeSync = vi.spyOn(fs, 'writeSync');
    const write = vi.spyOn(fs, 'write');
    const { sink, path } = fileSink();
    for (let i = 0; i < 1000; i++) sink.write(`line ${i}\n`);
    // Nothing is written in the turn that queued the lines: the request path never waits for a write.
    expect(writeSync).not.toHaveBeenCalled();
    await flushed(sink);
    expect(writeSync).toHaveBeenCalledTimes(1);
    await new Promise((r) => setImmediate(r));
    sink.write('next turn\n');
    await flushed(sink);
    expect(writeSync).toHaveBeenCalledTimes(2);
    expect(write).not.toHaveBeenCalled();
    expect(readFileSync(path, 'utf8').split('\n')).toHaveLength(1002);
    sink.close();
  });

  it('retries a descriptor that is not ready (EAGAIN) and sends the rest of a partial write, losing and repeating nothing', async () => {
    const real = fs.writeSync.bind(fs) as (...a: unknown[]) => number;
    let call = 0;
    vi.spyOn(fs, 'writeSync').mockImplementation(((...args: unknown[]) => {
      call++;
      if (call === 1) throw Object.assign(new Error('again'), { code: 'EAGAIN' });
      // Only the first 5 bytes go out.
      if (call === 2)
        return real(
          args[0],
          Buffer.isBuffer(args[1]) ? (args[1] as Buffer).subarray(0, 5) : Buffer.from(String(args[1])).subarray(0, 5),
        );
      return real(...args);
    }) as typeof fs.writeSync);
    const { sink, path } = fileSink();
    sink.write('first line\n');
    sink.write('second line\n');
    await flushed(sink);
    sink.write('third line\n');
    await flushed(sink);
    expect(call).toBeGreaterThanOrEqual(4);
    expect(readFileSync(path, 'utf8')).toBe('first line\nsecond line\nthird line\n');
    sink.close();
  });

  it('tells a partial write of multibyte text by its bytes, not its characters', async () => {
    const real = fs.writeSync.bind(fs) as (...a: unknown[]) => number;
    const line = 'é✓ 𝄞 ünïcödé ✓✓✓\n';
    let call = 0;
    vi.spyOn(fs, 'writeSync').mockImplementation(((...args: unknown[]) => {
      call++;
      const data = args[1] as Buffer;
      // The first write takes as many bytes as the text has characters: fewer than its bytes.
      if (call === 1) return real(args[0], data.subarray(0, line.length));
      return real(...args);
    }) as typeof fs.writeSync);
    const { sink, path } = fileSink();
    sink.write(line);
    await flushed(sink);
    expect(call).toBe(2);
    expect(readFileSync(path, 'utf8')).toBe(line);
    sink.close();
  });

  it('encodes turns of any length exactly: the scratch buffer grows, and a very long turn gets a buffer of its own', async () => {
    const { sink, path } = fileSink(8 * 1024 * 1024);
    const turns = [`short é\n`, `${'ab✓'.repeat(10_000)}\n`, `${'x€'.repeat(200_000)}\n`, 'after ✓\n'];
    for (const t of turns) {
      sink.write(t);
      await flushed(sink);
    }
    expect(readFileSync(path, 'utf8')).toBe(turns.join(''));
    sink.close();
  });

  it('stops quietly when the destination is gone: no throw, later lines counted as dropped', async () => {
    vi.spyOn(fs, 'writeSync').mockImplementation((() => {
      throw Object.assign(new Error('bad file descriptor'), { code: 'EBADF' });
    }) as typeof fs.writeSync);
    const { sink } = fileSink();
    sink.write('a\n');
    expect((await flushed(sink))?.message).toBe('bad file descriptor');
    expect(sink.write('b\n')).toBe(false);
    expect(sink.dropped).toBe(1);
    sink.close();
  });

  it('drops lines beyond its bound while the destination does not take them', async () => {
    let ready = false;
    const real = fs.writeSync.bind(fs) as (...a: unknown[]) => number;
    vi.spyOn(fs, 'writeSync').mockImplementation(((...args: unknown[]) => {
      if (!ready) throw Object.assign(new Error('again'), { code: 'EAGAIN' });
      return real(...args);
    }) as typeof fs.writeSync);
    const { sink, path } = fileSink(10 * 1024);
    const kb = `${'x'.repeat(1023)}\n`;
    let accepted = 0;
    for (let i = 0; i < 40; i++) if (sink.write(kb)) accepted++;
    expect(accepted).toBe(10);
    expect(sink.dropped).toBe(30);
    ready = true;
    await flushed(sink);
    expect(readFileSync(path).length).toBe(accepted * kb.length);
    sink.close();
  });

  it('to a pipe: every line in order, also while the reader lags, and no line is written twice', async () => {
    // 20,000 lines of 100 bytes over 200 turns: far more than a pipe holds while nobody reads it.
    const code = `const s = new LogSink(1); let i = 0;
      const turn = () => { for (let k = 0; k < 100; k++, i++) s.write('line ' + String(i).padStart(93, '.') + '\\n'); if (i < 20000) setImmediate(turn); else s.flush(() => process.stderr.write('flushed')); };
      process.stderr.write(s.mode); turn();`;
    const r = await child(code, 300);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('streamflushed');
    const lines = r.stdout.split('\n').filter(Boolean);
    expect(lines).toEqual(Array.from({ length: 20000 }, (_, i) => `line ${String(i).padStart(93, '.')}`));
  });

  it('to a pipe whose reader lags: drops beyond its bound instead of growing, and keeps the rest in order', async () => {
    const code = `const s = new LogSink(1, 'stream', 256 * 1024); const kb = 'x'.repeat(1023) + '\\n'; let ok = 0;
      for (let i = 0; i < 2000; i++) if (s.write(i + ':' + kb)) ok++;
      s.flush(() => process.stderr.write(JSON.stringify({ ok, dropped: s.dropped })));`;
    const r = await child(code, 300);
    const { ok, dropped } = JSON.parse(r.stderr) as { ok: number; dropped: number };
    expect(ok + dropped).toBe(2000);
    expect(dropped).toBeGreaterThan(0);
    const lines = r.stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(ok);
    expect(lines.map((l) => Number(l.split(':')[0]))).toEqual(Array.from({ length: ok }, (_, i) => i));
  });

  it('to a pipe whose reader is gone (EPIPE): stops quietly, the process carries on', async () => {
    const p = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `import { LogSink } from ${JSON.stringify(SRC)};
      const s = new LogSink(1); let i = 0;
      const t = setInterval(() => { s.write('line ' + i++ + '\\n'); if (s.dropped > 0) { clearInterval(t); process.stderr.write('stopped after ' + i); } }, 2);`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let err = '';
    p.stderr.on('data', (c: Buffer) => (err += c));
    p.stdout.once('data', () => p.stdout.destroy());
    const status = await new Promise((resolve) => p.on('close', resolve));
    expect(status).toBe(0);
    expect(err).toMatch(/^stopped after \d+$/);
  });

  it('writes what is still queued when the process exits', async () => {
    // 2000 lines, then exit at once: none was written yet (the first write waits for the end of the turn).
    const code = `import { LogSink } from ${JSON.stringify(SRC)}; const s = new LogSink(1); for (let i = 0; i < 2000; i++) s.write('line ' + i + '\\n'); process.exit(0);`;
    const r = await runProcess(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code]);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean)).toEqual(Array.from({ length: 2000 }, (_, i) => `line ${i}`));
  });
});
