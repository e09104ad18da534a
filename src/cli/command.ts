// One admin-API command: its options, --json, --url and --key, and what it prints. Every command the admin API
// serves is made here, so none can forget --json or read the store itself.
import type { Command } from 'commander';
import { adminClient, adminKey, gatewayUrl, type AdminClient } from './client.ts';
import type { Io } from './output.ts';

/** What a command answers: the API's JSON (printed with --json), its text form, and the exit code (default 0). */
export interface Answer {
  value: unknown;
  text: string;
  exit?: number;
}

export type Opts = Record<string, unknown>;

export interface Run {
  api: AdminClient;
  /** The command's positional arguments. */
  args: string[];
  opts: Opts;
}

/** The CLI's state for one run: where it writes, and the exit code the last command set. */
export interface Ctx {
  io: Io;
  exit: number;
}

/** Marks a command made by apiCommand: a test walks the program and checks each one answers --json. */
export const API_COMMAND = Symbol('tollway.apiCommand');

export function apiCommand(
  parent: Command,
  ctx: Ctx,
  spec: string,
  description: string,
  handler: (run: Run) => Promise<Answer>,
): Command {
  const cmd = parent
    .command(spec)
    .description(description)
    .option('--json', "print the admin API's JSON answer")
    .option('--url <url>', 'the gateway (default TOLLWAY_URL, else http://127.0.0.1:$PORT, PORT default 8080)')
    .option('--key <key>', 'a staff key (tws-…) or the admin key (default TOLLWAY_KEY, then TOLLWAY_ADMIN_KEY)');
  Object.assign(cmd, { [API_COMMAND]: true });
  cmd.action(async (...params: unknown[]) => {
    const self = params[params.length - 1] as Command;
    const opts = self.opts<Opts>();
    const env = ctx.io.env;
    const url = gatewayUrl(opts.url as string | undefined, env);
    const api = adminClient(url, adminKey(opts.key as string | undefined, env));
    const answer = await handler({ api, args: self.args, opts });
    ctx.io.out(opts.json ? JSON.stringify(answer.value, null, 2) : answer.text);
    ctx.exit = answer.exit ?? 0;
  });
  return cmd;
}

/** A repeatable option's collector (--budget day=5 --budget month=100). */
export const collect = (v: string, acc: string[] = []): string[] => [...acc, v];
