// What every CLI subcommand shares: the usage text and error, the actor of its audit lines, the store it runs on, and
// the
// reading of its flags.
import { resolveSecrets } from '../bootstrap.ts';
import { composeAdmin } from '../compose.ts';
import type { Config } from '../config/config.ts';
import type { Actor, AdminDeps } from '../core/admin/deps.ts';

export const USAGE = `Usage: tollway <command>
  serve                                   run the gateway (default)
  migrate                                 apply database migrations
  token create --name NAME [--models a,b] [--quota N] [--expires-at MS] [--rpm N] [--tpm N] [--concurrency N] [--account ID] [--budget PERIOD=N]…
  token list
  token revoke ID
  token update ID [--name N] [--models a,b|none] [--quota N|none] [--rpm N|none] [--tpm N|none] [--concurrency N|none] [--expires-at MS|none] [--account ID|none] [--budget PERIOD=N|none]…
  token topup ID --amount N [--idempotency-key K]   add N micro-units to the quota (a credit line in the ledger)
  token rotate ID [--grace-ms MS]         a new secret for the same token; the old one works for MS more (default 0)
  token rotate-callback-secret ID [--grace-ms MS]   a new secret for the token's task callbacks; the old one signs too
                                          for MS more (default TOLLWAY_CALLBACK_SECRET_GRACE_MS, 24 h)
  account create --name N [--quota N] [--budget PERIOD=N]… [--price-group G] [--time-zone TZ] [--expires-at MS] [--weight N]
                                          a customer account; PERIOD is day, week or month (calendar, in TZ or UTC)
  account list [--limit N] [--cursor C]
  account show ID
  account update ID [--name N] [--quota N|none] [--budget PERIOD=N|none]… [--price-group G|none] [--time-zone TZ|none] [--expires-at MS|none] [--weight N]
  account topup ID --amount N [--idempotency-key K]
  account revoke ID                       every token of the account is refused from now on
  account usage ID [--since MS] [--until MS]   balance, budgets in their current period, charges per model
  price-group set NAME [--multiplier X] [--price MODEL=PRICE_JSON]…   create or replace a price group
  price-group list
  channel add --name N --kind dashscope|kling [--base-url U] [--api-key K | --access-key A --secret-key S] [--models a,b] [--priority N] [--weight N] [--account A] [--task-slots N] [--model-limits JSON]
  channel list
  channel disable ID
  channel update ID [--name N] [--models a,b|none] [--priority N] [--weight N] [--account A|none] [--task-slots N|none] [--model-limits JSON|none] [--enable|--disable] [--base-url U] [--api-key K | --access-key A --secret-key S]
  webhook create --url U --events a,b [--description D] [--disable]   an alert webhook; prints its whsec_ secret once
                                          (events: spend.threshold, limit.reached, breaker.opened, breaker.closed, tasks.failure_rate, hold.reaped)
  webhook list [--limit N] [--cursor C]
  webhook update ID [--url U] [--events a,b] [--description D|none] [--enable|--disable]
  webhook delete ID
  webhook deliveries ID [--limit N] [--cursor C]   its deliveries with their outcome, newest first
  bill [--period day|month] [--by token|model|account] [--token ID] [--account ID] [--model M] [--since T] [--until T] [--format json|csv]
                                          totals from the ledger per token, model or account and UTC day or month (as GET /admin/bills)
  stats [--window 1h|24h|30d] [--group-by token|account]
                                          requests, errors and spend per time bucket, the busiest models and tokens
                                          (and accounts with --group-by account) over the window (as GET /admin/stats)
  reconcile [--from MS] [--to MS]         the ledger against the stored upstream usage (default: the last 24 h); exit 1 if anything needs a look
  simulate [--port N] [--task-ms MS] [--host H] [--public-url U]
                                          run the upstream simulator alone (U: the address in its result URLs)
A negative number is given with '=': --priority=-5.`;

/** A command line no command takes: the usage on stderr, exit code 2. */
export function usageError(): number {
  console.error(USAGE);
  return 2;
}

/** A wrong command line (not a wrong environment): printed without the "configuration error" label. */
export class UsageError extends Error {}

export const CLI: Actor = { actor: 'cli' };

/** Run an admin operation on the store: no HTTP app, no poller, no shared counters (a one-shot command). */
export async function withAdmin(config: Config, fn: (deps: AdminDeps) => Promise<number>): Promise<number> {
  const admin = await composeAdmin(config, resolveSecrets(config).secret);
  try {
    return await fn(admin.deps);
  } finally {
    await admin.close();
  }
}

/**
 * --models: model names, comma-separated; undefined when the flag is absent. Given but naming none (`""`, `","` — an
 * empty variable in a script) is a usage error: absent means every model, and an empty value must not grant that.
 */
export function modelList(v: string | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  const names = v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  if (names.length === 0)
    throw new UsageError(
      `--models needs one or more model names, comma-separated (got "${v}"); leave it out for every model`,
    );
  return names;
}

/**
 * A subcommand takes only its own flags (the parser knows every flag of the command): one it would ignore is a usage
 * error rather than silently dropped (`token create --amount`, `channel add --enable`).
 */
export function onlyFlags(values: Record<string, unknown>, sub: string, allowed: readonly string[]): void {
  for (const [flag, v] of Object.entries(values)) {
    if (v !== undefined && !allowed.includes(flag)) throw new UsageError(`${sub} does not take --${flag}`);
  }
}

export function num(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v.trim())) throw new UsageError(`${flag} must be a non-negative integer, got "${v}"`);
  return Number(v);
}

/** An integer (negative allowed), or undefined when the flag is absent. */
export function int(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v.trim())) throw new UsageError(`${flag} must be an integer, got "${v}"`);
  return Number(v);
}

/** A JSON value given to a flag (e.g. --model-limits '{"*":{"rpm":60}}'). */
export function jsonFlag(flag: string, v: string | undefined): unknown {
  if (v === undefined) return undefined;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    throw new UsageError(`${flag} must be JSON, got "${v}"`);
  }
}

/** For an edit: absent → not sent; `none` → null (remove); else the parsed value. */
export function orNone<T>(v: string | undefined, parse: (s: string) => T): T | null | undefined {
  if (v === undefined) return undefined;
  return v === 'none' ? null : parse(v);
}

/** A JSON body from the flags that were given (absent flags leave their field out). */
export const defined = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** Prints a value (JSON unless a string) and gives the command's exit status, 0. */
export function print(v: unknown): 0 {
  console.log(typeof v === 'string' ? v : JSON.stringify(v, null, 2));
  return 0;
}
