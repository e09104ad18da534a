// `tollway serve` as a child process (bin/tollway.mjs through tsx), for what only a real process shows: demo
// mode on an empty data dir, a SIGKILL mid-flight.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { freePort } from './free-port.ts';
import { GENEROUS_SIM_ENV } from './sim-limits.ts';

export const TOLLWAY_BIN = join(import.meta.dirname, '..', '..', 'bin', 'tollway.mjs');

export interface ServeProcess {
  child: ChildProcess;
  base: string;
  /** What it printed so far: stderr, then stdout. */
  output(): string;
  /** Its exit code, once it ended. */
  exited: Promise<number | null>;
  /** SIGTERM, then its exit code. */
  stop(): Promise<number | null>;
}

/**
 * A `serve(env, waitFor, argv)` for a test file: starts `tollway serve` (or `tollway <argv(port)>`, e.g. `simulate
 * --port <port>`) on a free port of 127.0.0.1 with `env` (plus PATH, PORT and HOST) and resolves once its stderr
 * matches `waitFor`. A port found free can be taken by another test
 * process before the child binds it: on EADDRINUSE, again on another port. Every process still running after the
 * file's tests is killed (SIGKILL) — call this after the file's own afterAll hooks that need the processes gone.
 */
export function useServeProcesses(): (
  env: Record<string, string>,
  waitFor?: RegExp,
  argv?: (port: number) => string[],
) => Promise<ServeProcess> {
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  });
  const once = async (
    env: Record<string, string>,
    waitFor: RegExp,
    argv: (port: number) => string[],
  ): Promise<ServeProcess> => {
    const port = await freePort();
    const child = spawn(process.execPath, [TOLLWAY_BIN, ...argv(port)], {
      env: { PATH: process.env.PATH ?? '', PORT: String(port), HOST: '127.0.0.1', ...GENEROUS_SIM_ENV, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let err = '';
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on('data', (d: Buffer) => {
        err += d.toString();
        if (waitFor.test(err)) resolve();
      });
      child.once('exit', (code) => reject(new Error(`serve exited early (${code}): ${err}${out}`)));
    });
    return {
      child,
      base: `http://127.0.0.1:${port}`,
      output: () => err + out,
      exited,
      stop: async () => {
        child.kill('SIGTERM');
        return exited;
      },
    };
  };
  return async (env, waitFor = /listening on /, argv = () => ['serve']) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await once(env, waitFor, argv);
      } catch (e) {
        if (attempt >= 3 || !/EADDRINUSE/.test(String(e))) throw e;
      }
    }
  };
}
