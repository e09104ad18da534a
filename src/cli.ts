#!/usr/bin/env node
// tollway serve | migrate | token create|list|revoke|update|topup|rotate | channel add|list|disable|update | reconcile | simulate
import { parseArgs } from 'node:util';
import { callbackSigningKey, SecretBox } from './auth/secret-box.ts';
import { resolveSecrets } from './bootstrap.ts';
import { composeAdmin } from './compose.ts';
import { ConfigError, loadConfig, type Config } from './config/config.ts';
import { addChannel, listChannels, parseCreateChannel, publicChannel, setChannelStatus } from './core/admin/channels.ts';
import type { Actor, AdminDeps } from './core/admin/deps.ts';
import { issueToken, listTokens, parseCreateToken, publicToken, revokeToken } from './core/admin/tokens.ts';
import { parseRotate, parseTokenPatch, parseTopUp, rotateToken, topUp, updateToken } from './core/admin/token-changes.ts';
import { channelView, getChannel, parseChannelEdit, updateChannel } from './core/admin/channel-changes.ts';
import { reconcilePeriod, reconcileReport } from './core/admin/reconcile.ts';
import { isClean } from './core/reconcile.ts';
import { serve } from './main.ts';
import { openStore } from './store/store.ts';

const USAGE = `Usage: tollway <command>
  serve                                   run the gateway (default)
  migrate                                 apply database migrations
  token create --name NAME [--models a,b] [--quota N] [--expires-at MS] [--rpm N] [--tpm N] [--concurrency N]
  token list
  token revoke ID
  token update ID [--name N] [--models a,b|none] [--quota N|none] [--rpm N|none] [--tpm N|none] [--concurrency N|none] [--expires-at MS|none]
  token topup ID --amount N [--idempotency-key K]   add N micro-units to the quota (a credit line in the ledger)
  token rotate ID [--grace-ms MS]         a new secret for the same token; the old one works for MS more (default 0)
  channel add --name N --kind dashscope|kling [--base-url U] [--api-key K | --access-key A --secret-key S] [--models a,b] [--priority N] [--weight N] [--account A] [--task-slots N]
  channel list
  channel disable ID
  channel update ID [--name N] [--models a,b|none] [--priority N] [--weight N] [--account A|none] [--task-slots N|none] [--enable|--disable] [--base-url U] [--api-key K | --access-key A --secret-key S]
  reconcile [--from MS] [--to MS]         the ledger against the stored upstream usage (default: the last 24 h); exit 1 if anything needs a look
  callback-key                            print the key client callbacks are signed with (give it to the clients that verify them)
  simulate [--port N] [--task-ms MS] [--host H] [--public-url U]
                                          run the upstream simulator alone (U: the address in its result URLs)
A negative number is given with '=': --priority=-5.`;

/** A wrong command line (not a wrong environment): printed without the "configuration error" label. */
class UsageError extends Error {}

const CLI: Actor = { actor: 'cli' };

/** Run an admin operation on the store: no HTTP app, no poller, no shared counters (a one-shot command). */
async function withAdmin(config: Config, fn: (deps: AdminDeps) => Promise<number>): Promise<number> {
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
function modelList(v: string | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  const names = v.split(',').map((x) => x.trim()).filter(Boolean);
  if (names.length === 0) throw new UsageError(`--models needs one or more model names, comma-separated (got "${v}"); leave it out for every model`);
  return names;
}

/**
 * A subcommand takes only its own flags (the parser knows every flag of the command): one it would ignore is a usage
 * error rather than silently dropped (`token create --amount`, `channel add --enable`).
 */
function onlyFlags(values: Record<string, unknown>, sub: string, allowed: readonly string[]): void {
  for (const [flag, v] of Object.entries(values)) {
    if (v !== undefined && !allowed.includes(flag)) throw new UsageError(`${sub} does not take --${flag}`);
  }
}

function num(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v.trim())) throw new UsageError(`${flag} must be a non-negative integer, got "${v}"`);
  return Number(v);
}

/** An integer (negative allowed), or undefined when the flag is absent. */
function int(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v.trim())) throw new UsageError(`${flag} must be an integer, got "${v}"`);
  return Number(v);
}

/** For an edit: absent → not sent; `none` → null (remove); else the parsed value. */
function orNone<T>(v: string | undefined, parse: (s: string) => T): T | null | undefined {
  if (v === undefined) return undefined;
  return v === 'none' ? null : parse(v);
}

/** A JSON body from the flags that were given (absent flags leave their field out). */
const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

const print = (v: unknown) => console.log(typeof v === 'string' ? v : JSON.stringify(v, null, 2));

async function tokenCommand(config: Config, sub: string | undefined, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      models: { type: 'string' },
      quota: { type: 'string' },
      'expires-at': { type: 'string' },
      rpm: { type: 'string' },
      tpm: { type: 'string' },
      concurrency: { type: 'string' },
      amount: { type: 'string' },
      'idempotency-key': { type: 'string' },
      'grace-ms': { type: 'string' },
    },
  });
  const id = positionals[0];
  if (sub === 'create') {
    onlyFlags(values, 'token create', ['name', 'models', 'quota', 'expires-at', 'rpm', 'tpm', 'concurrency']);
    if (!values.name) throw new UsageError('--name is required');
    // The same validation as POST /admin/tokens (unknown models, past expiry …).
    const input = parseCreateToken({
      name: values.name,
      models: modelList(values.models),
      quota: num('--quota', values.quota),
      expires_at: num('--expires-at', values['expires-at']),
      rpm_limit: num('--rpm', values.rpm),
      tpm_limit: num('--tpm', values.tpm),
      concurrency_limit: num('--concurrency', values.concurrency),
    });
    return withAdmin(config, async (deps) => {
      const { record, secret } = await issueToken(deps, CLI, input);
      print(`id:    ${record.id}\ntoken: ${secret}\n(the token is shown only once)`);
      return 0;
    });
  }
  if (sub === 'list' || sub === 'revoke') onlyFlags(values, `token ${sub}`, []);
  if (sub === 'list') return withAdmin(config, async (deps) => (print((await listTokens(deps)).map(publicToken)), 0));
  if (sub === 'revoke' && id) return withAdmin(config, async (deps) => (await revokeToken(deps, CLI, id), print(`revoked ${id}`), 0));
  if (sub === 'update' && id) {
    onlyFlags(values, 'token update', ['name', 'models', 'quota', 'rpm', 'tpm', 'concurrency', 'expires-at']);
    // The same validation as PATCH /admin/tokens/{id}.
    const patch = parseTokenPatch(
      defined({
        name: values.name,
        models: orNone(values.models, modelList),
        quota: orNone(values.quota, (v) => num('--quota', v)),
        rpm_limit: orNone(values.rpm, (v) => num('--rpm', v)),
        tpm_limit: orNone(values.tpm, (v) => num('--tpm', v)),
        concurrency_limit: orNone(values.concurrency, (v) => num('--concurrency', v)),
        expires_at: orNone(values['expires-at'], (v) => num('--expires-at', v)),
      }),
    );
    return withAdmin(config, async (deps) => (print(publicToken(await updateToken(deps, CLI, id, patch))), 0));
  }
  if (sub === 'topup' && id) {
    onlyFlags(values, 'token topup', ['amount', 'idempotency-key']);
    const input = parseTopUp(defined({ amount: num('--amount', values.amount), idempotency_key: values['idempotency-key'] }));
    return withAdmin(config, async (deps) => {
      const r = await topUp(deps, CLI, id, input);
      print({ ...publicToken(r.token), topup: { amount: r.amount, credited: r.credited } });
      return 0;
    });
  }
  if (sub === 'rotate' && id) {
    onlyFlags(values, 'token rotate', ['grace-ms']);
    const opts = parseRotate(defined({ grace_ms: num('--grace-ms', values['grace-ms']) }));
    return withAdmin(config, async (deps) => {
      const { record, secret } = await rotateToken(deps, CLI, id, opts);
      const grace = record.previousSecretUntil === null ? 'the previous token is refused from now on' : `the previous token works until ${new Date(record.previousSecretUntil).toISOString()}`;
      print(`id:    ${record.id}\ntoken: ${secret}\n(the token is shown only once; ${grace})`);
      return 0;
    });
  }
  console.error(USAGE);
  return 2;
}

async function channelCommand(config: Config, sub: string | undefined, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      kind: { type: 'string' },
      'base-url': { type: 'string' },
      'api-key': { type: 'string' },
      'access-key': { type: 'string' },
      'secret-key': { type: 'string' },
      models: { type: 'string' },
      priority: { type: 'string' },
      weight: { type: 'string' },
      account: { type: 'string' },
      'task-slots': { type: 'string' },
      enable: { type: 'boolean' },
      disable: { type: 'boolean' },
    },
  });
  const id = positionals[0];
  if (sub === 'add') {
    onlyFlags(values, 'channel add', ['name', 'kind', 'base-url', 'api-key', 'access-key', 'secret-key', 'models', 'priority', 'weight', 'account', 'task-slots']);
    // The same validation as POST /admin/channels.
    const body = defined({
      name: values.name,
      kind: values.kind,
      base_url: values['base-url'],
      api_key: values['api-key'],
      access_key: values['access-key'],
      secret_key: values['secret-key'],
      models: modelList(values.models),
      priority: int('--priority', values.priority),
      weight: int('--weight', values.weight),
      account: values.account,
      task_slots: int('--task-slots', values['task-slots']),
    });
    const input = parseCreateChannel(body);
    return withAdmin(config, async (deps) => (print(publicChannel(await addChannel(deps, CLI, input))), 0));
  }
  if (sub === 'list' || sub === 'disable') onlyFlags(values, `channel ${sub}`, []);
  if (sub === 'list') return withAdmin(config, async (deps) => (print((await listChannels(deps)).map(publicChannel)), 0));
  if (sub === 'disable' && id) return withAdmin(config, async (deps) => (await setChannelStatus(deps, CLI, id, 'disabled'), print(`disabled ${id}`), 0));
  if (sub === 'update' && id) {
    onlyFlags(values, 'channel update', ['name', 'models', 'priority', 'weight', 'enable', 'disable', 'base-url', 'api-key', 'access-key', 'secret-key', 'account', 'task-slots']);
    if (values.enable && values.disable) throw new UsageError('--enable and --disable exclude each other');
    const body = defined({
      name: values.name,
      models: orNone(values.models, modelList),
      priority: int('--priority', values.priority),
      weight: int('--weight', values.weight),
      enabled: values.enable ? true : values.disable ? false : undefined,
      base_url: values['base-url'],
      api_key: values['api-key'],
      access_key: values['access-key'],
      secret_key: values['secret-key'],
      account: orNone(values.account, (a) => a),
      task_slots: orNone(values['task-slots'], (n) => int('--task-slots', n)),
    });
    // The same validation as PATCH /admin/channels/{id}; keys are never printed.
    return withAdmin(config, async (deps) => {
      const edit = parseChannelEdit(body, (await getChannel(deps, id)).kind);
      print(channelView(deps, await updateChannel(deps, CLI, id, edit)));
      return 0;
    });
  }
  console.error(USAGE);
  return 2;
}

/** Prints the report as JSON; exit code 0 when it is clean, 1 when something needs a look. */
async function reconcileCommand(config: Config, args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { from: { type: 'string' }, to: { type: 'string' } } });
  const { from, to } = reconcilePeriod(num('--from', values.from), num('--to', values.to));
  if (from >= to) throw new UsageError('--from must be before --to');
  return withAdmin(config, async (deps) => {
    const report = await reconcileReport(deps, from, to, config.reservationTtlMs);
    print(report);
    return isClean(report) ? 0 : 1;
  });
}

const HELP = new Set(['help', '--help', '-h']);

async function main(argv: string[]): Promise<number> {
  const [cmd = 'serve', sub, ...rest] = argv;
  // Help needs no configuration (and a command's own --help is the same usage).
  if (HELP.has(cmd) || (sub !== undefined && HELP.has(sub)) || rest.some((a) => HELP.has(a))) {
    console.log(USAGE);
    return 0;
  }
  const config = loadConfig();
  switch (cmd) {
    case 'serve':
      await serve(config);
      return -1; // keep running
    case 'migrate': {
      const store = await openStore(config.databaseUrl);
      await store.close();
      console.log(`migrations applied (${store.dialect})`);
      return 0;
    }
    case 'token':
      return tokenCommand(config, sub, rest);
    case 'channel':
      return channelCommand(config, sub, rest);
    case 'reconcile':
      return reconcileCommand(config, [sub, ...rest].filter((x): x is string => x !== undefined));
    case 'callback-key':
      console.log(callbackSigningKey(config.callbacks.secret, new SecretBox(resolveSecrets(config).secret)));
      return 0;
    case 'simulate': {
      const { values } = parseArgs({
        args: [sub, ...rest].filter((x): x is string => x !== undefined),
        options: { port: { type: 'string' }, 'task-ms': { type: 'string' }, host: { type: 'string' }, 'public-url': { type: 'string' } },
      });
      const publicUrl = values['public-url'];
      if (publicUrl !== undefined && !/^https?:\/\/[^/]/.test(publicUrl)) throw new UsageError(`--public-url must be an http(s) URL, got "${publicUrl}"`);
      // Loaded on demand: `serve` in production never carries the simulator's code.
      const { startSimulator } = await import('../simulator/index.ts');
      const host = values.host ?? '127.0.0.1';
      const sim = await startSimulator({ port: num('--port', values.port) ?? 9090, host, taskDurationMs: num('--task-ms', values['task-ms']) ?? 5000, ...(publicUrl ? { publicUrl } : {}) });
      console.error(`Upstream SIMULATOR listening on ${host}:${sim.port}, results at ${sim.url} (DashScope + Kling wire protocols; not a real provider)`);
      // As a container's PID 1 (`docker run … simulate`, the compose file's simulator) a signal without a handler
      // is ignored, so `docker stop` would wait for its timeout and kill.
      for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void sim.close().then(() => process.exit(0)));
      return -1;
    }
    default:
      console.error(USAGE);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (e: unknown) => {
    // A usage or validation error (GatewayError) is one line: its message.
    if (e instanceof ConfigError) console.error(`tollway: configuration error: ${e.message}`);
    else console.error(`tollway: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
