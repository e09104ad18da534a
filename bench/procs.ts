// The bench's child processes: each runs a compiled file from dist/bench (as `npm start` runs dist/), says
// {type:'ready', port, token?} over IPC once listening, and answers {type:'stats'} (proc-stats.ts).
import { fork, type ChildProcess, type ForkOptions } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface Proc {
  child: ChildProcess;
  port: number;
  token?: string;
}

/** The compiled form of a bench file (dist/ is refreshed by `prebench`). */
const compiled = (f: string) => fileURLToPath(new URL(`../dist/bench/${f.replace(/\.ts$/, '.js')}`, import.meta.url));

/**
 * Fork a bench process and wait until it listens. `wrap` runs it under another program (valgrind): that
 * program's path and arguments, followed by node and its flags.
 */
export function start(
  file: string,
  env: Record<string, string> = {},
  execArgv: string[] = [],
  wrap?: { execPath: string; args: string[] },
): Promise<Proc> {
  const opts: ForkOptions = {
    execArgv,
    env: { ...process.env, ...env },
    // BENCH_TARGET_STDOUT=1: the targets' stdout (the gateway's log, V8's --trace-opt lines) on the bench's own.
    stdio: ['ignore', process.env.BENCH_TARGET_STDOUT === '1' ? 'inherit' : 'ignore', 'inherit', 'ipc'],
  };
  if (wrap) {
    opts.execPath = wrap.execPath;
    opts.execArgv = [...wrap.args, process.execPath, ...execArgv];
  }
  const child = fork(compiled(file), [], opts);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${file} exited (${code}) before it was ready`)));
    child.on('message', (m: { type: string; port: number; token?: string }) => {
      if (m.type === 'ready') resolve({ child, port: m.port, ...(m.token ? { token: m.token } : {}) });
    });
  });
}

/** Send `{type, ...payload}` and wait for the child's answer of the same type. */
export function ask<T>(p: Proc, type: string, payload: Record<string, unknown> = {}): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: { type: string }) => {
      if (m.type !== type) return;
      p.child.off('message', on);
      resolve(m as T);
    };
    p.child.on('message', on);
    p.child.send({ ...payload, type });
  });
}

/** The non-streaming chat body every target is driven with (public name for the gateway, upstream name otherwise). */
export const chatBody = (model: string, stream: boolean) =>
  JSON.stringify({
    model,
    stream,
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Benchmark question: what is a gateway?' },
    ],
  });

/** The embeddings body every target is driven with (the same name upstream and in the catalogue). */
export const embedBody = (model: string) =>
  JSON.stringify({ model, input: ['first benchmark sentence', 'second benchmark sentence'], dimensions: 256 });
