// The `tollway` CLI against a real gateway: spawned as an operator runs it (bin/tollway.mjs), or run in this process
// (the same program, commander and HTTP client) where a test drives every command and spawning each would be slow.
// Its environment holds only the gateway's address and a key: every rule it meets is the server's.
import type { Harness } from './harness.ts';
import { runCli } from '../../src/cli/program.ts';
import { runProcess, type Ran } from './run-process.ts';
import { TOLLWAY_BIN } from './serve-process.ts';
import { tempDir } from './temp-dir.ts';

const dir = tempDir('tollway-cli-env-');

export const cliEnv = (h: Harness, extra: Record<string, string> = {}): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? dir,
  TOLLWAY_DATA_DIR: dir,
  TOLLWAY_URL: h.url,
  TOLLWAY_ADMIN_KEY: h.adminKey,
  ...extra,
});

/** The CLI as a process, against `h`. */
export function tollway(h: Harness, args: string[], extra: Record<string, string> = {}): Promise<Ran> {
  return runProcess(process.execPath, [TOLLWAY_BIN, ...args], { env: cliEnv(h, extra), timeoutMs: 60_000 });
}

/** The CLI in this process, against `h`: what it printed and its exit code. */
export async function tollwayIn(h: Harness, args: string[], extra: Record<string, string> = {}): Promise<Ran> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    out: (s) => (stdout += `${s}\n`),
    err: (s) => (stderr += `${s}\n`),
    env: cliEnv(h, extra),
  });
  return { code, stdout, stderr };
}

/** Run and expect success with nothing on stderr; the JSON answer (the command is given --json). */
export async function okJson<T = Record<string, unknown>>(h: Harness, args: string[]): Promise<T> {
  const r = await tollway(h, [...args, '--json']);
  if (r.code !== 0 || r.stderr !== '') throw new Error(`tollway ${args.join(' ')}: ${r.code} ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** Run and expect success with nothing on stderr; the text printed. */
export async function okText(h: Harness, args: string[]): Promise<string> {
  const r = await tollway(h, args);
  if (r.code !== 0 || r.stderr !== '') throw new Error(`tollway ${args.join(' ')}: ${r.code} ${r.stderr}`);
  return r.stdout;
}

/** The admin API's audit lines of token and channel changes, as "action target", oldest first. */
export async function audited(h: Harness): Promise<string[]> {
  const rows = await h.store.db
    .selectFrom('audit_log')
    .select(['action', 'target'])
    .where('actor', '=', 'admin')
    .where((w) => w.or([w('action', 'like', 'token.%'), w('action', 'like', 'channel.%')]))
    .orderBy('id')
    .execute();
  return rows.map((r) => `${r.action} ${r.target}`);
}
