// `tollway simulate` (the compose file's simulator service, `docker run … simulate`) ends cleanly on SIGTERM and
// SIGINT: as a container's PID 1 a signal without a handler is ignored, and the engine would wait and kill.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { TOLLWAY_BIN } from '../support/serve-process.ts';

async function stopWith(
  signal: 'SIGTERM' | 'SIGINT',
): Promise<{ code: number | null; signal: NodeJS.Signals | null; port: number }> {
  const child = spawn(process.execPath, [TOLLWAY_BIN, 'simulate', '--port', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /listening on [^:]+:(\d+)/.exec(err);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`simulate exited (${code}) before listening: ${err}`)));
  });
  // It answers before the signal, and the signal ends it with exit code 0 (not killed by it).
  expect((await fetch(`http://127.0.0.1:${port}/__sim/health`)).status).toBe(200);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, sig) => resolve({ code, signal: sig })),
  );
  child.kill(signal);
  return { ...(await exited), port };
}

describe('tollway simulate', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'closes and exits 0 on %s',
    async (signal) => {
      const r = await stopWith(signal);
      expect({ code: r.code, signal: r.signal }).toEqual({ code: 0, signal: null });
      await expect(fetch(`http://127.0.0.1:${r.port}/__sim/health`)).rejects.toThrow();
    },
    180_000,
  );
});
