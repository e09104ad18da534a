// The `tollway` command line: commander's program (commands, options, --help, --version, "did you mean"), and one
// run of it with its exit code — 0 done, 1 refused or failed, 2 a wrong command line, -1 keep running (serve).
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { accountCommands } from './account-command.ts';
import { channelCommands } from './channel-command.ts';
import { ApiError, UsageError } from './client.ts';
import type { Ctx } from './command.ts';
import type { Io } from './output.ts';
import { reportCommands } from './report-commands.ts';
import { storeCommands } from './store-commands.ts';
import { tokenCommands } from './token-command.ts';
import { webhookCommands } from './webhook-command.ts';

/** The package's version, from the package.json above this file (src/cli/ in a checkout, dist/src/cli/ when built). */
function version(): string {
  for (let dir = import.meta.dirname; dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  }
  return 'unknown';
}

export function buildProgram(ctx: Ctx): Command {
  const program = new Command('tollway')
    .description(
      'Tollway, a metered model gateway. `serve` runs it; the other commands are clients of its admin API (--url, --key).',
    )
    .version(version(), '-V, --version', 'print the version')
    .showSuggestionAfterError()
    .exitOverride()
    .configureOutput({
      writeOut: (s) => ctx.io.out(s.replace(/\n$/, '')),
      writeErr: (s) => ctx.io.err(s.replace(/\n$/, '')),
      // "error: unknown command 'tokn'\n(Did you mean token?)" → "tollway: unknown command 'tokn' (Did you mean token?)"
      outputError: (s, write) => write(`tollway: ${s.replace(/^error: /, '').replace(/\n(?=.)/g, ' ')}`),
    });
  storeCommands(program, ctx);
  tokenCommands(program, ctx);
  accountCommands(program, ctx);
  channelCommands(program, ctx);
  webhookCommands(program, ctx);
  reportCommands(program, ctx);
  program.addHelpText(
    'after',
    "\nA negative number is given with '=': --priority=-5. Times: ISO 8601, a span (7d), or ms.",
  );
  return program;
}

/** The line an error is printed as: its message, and the request id when the server answered. */
function errorLine(e: unknown): string {
  if (e instanceof ApiError) {
    const what = e.status === 403 ? 'permission denied: ' : '';
    // The server's message may end with its own "(request id: …)": said once, with the status and code.
    const message = e.message.replace(/\s*\(request id: [^)]*\)$/, '');
    return `tollway: ${what}${message} (HTTP ${e.status} ${e.code}${e.requestId ? `, request ${e.requestId}` : ''})`;
  }
  if (e instanceof Error && e.name === 'ConfigError') return `tollway: configuration error: ${e.message}`;
  return `tollway: ${e instanceof Error ? e.message : String(e)}`;
}

/** Run the CLI on `argv` (without node and the script); never throws, never prints a stack trace. */
export async function runCli(argv: string[], io: Io): Promise<number> {
  const ctx: Ctx = { io, exit: 0 };
  try {
    // No command is `serve` (npm start, the container's default).
    await buildProgram(ctx).parseAsync(argv.length === 0 ? ['serve'] : argv, { from: 'user' });
    return ctx.exit;
  } catch (e) {
    // Commander has printed its own message (help, version, an unknown command or option).
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    io.err(errorLine(e));
    if (e instanceof UsageError) return 2;
    return 1;
  }
}
