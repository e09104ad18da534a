// The container test's hands: the operator's commands from docs/operations.md run as written (through
// deploy/ci/bin/docker, which points them at the local base images), compose and docker calls, and what the
// gateways logged. Everything runs on this machine's Docker engine; the stack's port is fixed (STACK_PORT).
import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GENEROUS_SIM_ENV } from '../../support/sim-limits.ts';

export const ROOT = join(import.meta.dirname, '..', '..', '..');
/** The load balancer's port on the host (TOLLWAY_PORT): away from the ports the rest of the suite uses. */
export const STACK_PORT = Number(process.env.TOLLWAY_STACK_PORT ?? 58080);
export const LB = `http://127.0.0.1:${STACK_PORT}`;
/** The admin key the stack runs with: the compose file has none, so the operator's commands are given one. */
export const ADMIN_KEY = `stack-admin-key-${randomBytes(12).toString('hex')}`;
const COMPOSE = ['compose', '-f', 'deploy/compose.yaml'];

/**
 * The environment every command runs in: the CI docker first on PATH, the stack's port, the simulator's limits above
 * the tests' traffic.
 */
export const stackEnv = (): NodeJS.ProcessEnv => ({
  ...GENEROUS_SIM_ENV,
  ...process.env,
  PATH: `${join(ROOT, 'deploy', 'ci', 'bin')}:${process.env.PATH ?? ''}`,
  TOLLWAY_PORT: String(STACK_PORT),
  TOLLWAY_ADMIN_KEY: ADMIN_KEY,
});

/** The shell block marked `<!-- ci-run: NAME -->` in docs/operations.md, as an operator copies it. */
export function docBlock(name: string): string {
  const doc = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');
  const m = new RegExp(`<!-- ci-run: ${name} -->\\s*\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(doc);
  if (!m) throw new Error(`docs/operations.md has no block marked ci-run: ${name}`);
  return m[1]!;
}

export interface Ran {
  status: number;
  stdout: string;
  stderr: string;
}

/** Run a shell script at the repository root; throws with its output when it fails (unless `allowFail`). */
export function sh(script: string, opts: { allowFail?: boolean; timeoutMs?: number; input?: string } = {}): Ran {
  const r = spawnSync('bash', ['-euo', 'pipefail', '-c', script], {
    cwd: ROOT,
    env: stackEnv(),
    encoding: 'utf8',
    timeout: opts.timeoutMs ?? 900_000,
    maxBuffer: 256 * 1024 * 1024,
    ...(opts.input === undefined ? {} : { input: opts.input }),
  });
  const ran = { status: r.status ?? -1, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
  if (ran.status !== 0 && !opts.allowFail)
    throw new Error(
      `failed (${ran.status}${r.error ? `, ${r.error.message}` : ''}): ${script}\n--- stderr:\n${ran.stderr.slice(-4000)}\n--- stdout:\n${ran.stdout.slice(-1500)}`,
    );
  return ran;
}

/**
 * `sh` without blocking the event loop, for the long commands (image builds, compose up): a test worker blocked
 * for a minute loses its link to the test runner.
 */
export function shAsync(script: string, timeoutMs = 1_800_000): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd: ROOT, env: stackEnv(), timeout: timeoutMs });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-64_000)));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve({ status: 0, stdout, stderr });
      else
        reject(
          new Error(
            `failed (${code}): ${script}\n--- stderr:\n${stderr.slice(-4000)}\n--- stdout:\n${stdout.slice(-1500)}`,
          ),
        );
    });
  });
}

/** Run the docs block NAME, logging that it ran (the CI log shows each operator command's outcome). */
export async function runDoc(name: string, timeoutMs?: number): Promise<Ran> {
  const block = docBlock(name);
  const t0 = Date.now();
  const r = await shAsync(block, timeoutMs);
  console.log(
    `[stack] docs/operations.md "${name}" ran in ${((Date.now() - t0) / 1000).toFixed(0)} s:\n${block.trim().replace(/^/gm, '    $ ')}`,
  );
  return r;
}

export function docker(...args: string[]): string {
  return execFileSync('docker', args, {
    cwd: ROOT,
    env: stackEnv(),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout: 300_000,
  });
}

export function compose(...args: string[]): string {
  return docker(...COMPOSE, ...args);
}

/** A compose command that runs while the test goes on making calls. */
export function composeAsync(...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'docker',
      [...COMPOSE, ...args],
      { cwd: ROOT, env: stackEnv(), encoding: 'utf8', timeout: 300_000 },
      (err, stdout) => (err ? reject(err) : resolve(stdout)),
    );
  });
}

/** The container id of a compose service. */
export const containerOf = (service: string): string => compose('ps', '-q', service).trim();

/** `docker inspect` of a service's container. */
export function inspect(service: string): {
  State: { Status: string; ExitCode: number; StartedAt: string; Health?: { Status: string } };
  NetworkSettings: { Networks: Record<string, { IPAddress: string }> };
} {
  return JSON.parse(docker('inspect', containerOf(service)))[0];
}

/** The request ids a service logged an access line for (its JSON log lines with msg "request"). */
export function loggedRequests(service: string): Map<string, { status: number; path: string }> {
  const out = new Map<string, { status: number; path: string }>();
  const logs = spawnSync('docker', ['logs', containerOf(service)], {
    env: stackEnv(),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  for (const line of `${logs.stdout}\n${logs.stderr}`.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const j = JSON.parse(line) as { msg?: string; request_id?: string; status?: number; path?: string };
      if (j.msg === 'request' && j.request_id) out.set(j.request_id, { status: j.status ?? 0, path: j.path ?? '' });
    } catch {
      // not a log line of the gateway's
    }
  }
  return out;
}

/** Which gateway logged the request (undefined: neither, e.g. the one that served it was killed before its end). */
export function servedBy(rid: string): 'gateway1' | 'gateway2' | undefined {
  if (loggedRequests('gateway1').has(rid)) return 'gateway1';
  if (loggedRequests('gateway2').has(rid)) return 'gateway2';
  return undefined;
}

/** A request made from inside a service's container to its own port (each gateway alone, not through nginx). */
export function fetchInside(
  service: string,
  path: string,
  bearer?: string,
  port = 8080,
): { status: number; body: string } {
  const script = `fetch('http://127.0.0.1:${port}${path}',{headers:${JSON.stringify(bearer ? { authorization: `Bearer ${bearer}` } : {})}}).then(async r=>{process.stdout.write(JSON.stringify({status:r.status,body:await r.text()}))},e=>{process.stdout.write(JSON.stringify({status:0,body:String(e)}))})`;
  return JSON.parse(compose('exec', '-T', service, 'node', '-e', script)) as { status: number; body: string };
}

/** SQL run by psql inside the postgres container, rows as tab-separated lines. */
export function psql(sql: string): string[] {
  return compose('exec', '-T', 'postgres', 'psql', '-U', 'tollway', '-d', 'tollway', '-At', '-F', '\t', '-c', sql)
    .trim()
    .split('\n')
    .filter(Boolean);
}

export async function until<T>(
  what: string,
  ms: number,
  probe: () => Promise<T | undefined> | T | undefined,
): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  while (Date.now() < end) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`never happened within ${ms / 1000} s: ${what}${last ? ` (last error: ${String(last)})` : ''}`);
}
