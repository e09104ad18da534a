// A child process run to its end without blocking the test worker's event loop. spawnSync would: a few CLI runs
// back to back under a loaded host block it for over a minute, and vitest's worker then fails the whole run on an
// RPC to its pool that timed out meanwhile ("Timeout calling onTaskUpdate"), every test having passed.
import { spawn } from 'node:child_process';

export interface Ran {
  /** The exit code; null when it was killed (its time was up, or a signal). */
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runProcess(
  file: string,
  args: readonly string[],
  opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = opts.timeoutMs === undefined ? null : setTimeout(() => child.kill('SIGTERM'), opts.timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
