// What every `tollway` command promises, against a real gateway: each one takes --json and answers JSON (the list
// of commands read from the commander program itself, so a new command without a sample or without --json fails),
// and a readable text form without it; the CLI and the server refuse the same webhook targets; a wrong command line
// names the mistake (exit 2); --version; a staff role that may not write gets a 403 naming the role and the route;
// an unreachable gateway is named by its URL.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { API_COMMAND } from '../../src/cli/command.ts';
import { buildProgram } from '../../src/cli/program.ts';
import { tollway, tollwayIn } from '../support/cli.ts';
import { freePort } from '../support/free-port.ts';
import { type Harness, useHarness } from '../support/harness.ts';
import { tempDir } from '../support/temp-dir.ts';

const dir = tempDir('tollway-cli-contract-');
const ctx = useHarness();
let n = 0;

/** Commands that run until stopped: they answer nothing to print as JSON. */
const LONG_RUNNING = ['serve', 'simulate'];

function leaves(cmd: Command, path: string[] = []): Array<{ name: string; cmd: Command }> {
  const subs = cmd.commands.filter((c) => c.name() !== 'help');
  if (subs.length === 0) return [{ name: path.join(' '), cmd }];
  return subs.flatMap((c) => leaves(c, [...path, c.name()]));
}

async function made(h: Harness, path: string, json: unknown): Promise<string> {
  const r = await h.admin(path, { method: path.startsWith('/admin/price-groups') ? 'PUT' : 'POST', json });
  expect(r.status, path).toBeLessThan(300);
  return ((await r.json()) as { id: string }).id;
}

const token = async (h: Harness) => (await h.token({ name: `t${n++}`, quota: 100 })).id;
const account = (h: Harness) => made(h, '/admin/accounts', { name: `a${n++}`, quota: 100 });
const channel = (h: Harness) =>
  made(h, '/admin/channels', { name: `c${n++}`, kind: 'dashscope', base_url: 'http://127.0.0.1:9', api_key: 'sk-x' });
const webhook = (h: Harness) =>
  made(h, '/admin/webhooks', { url: 'https://hooks.example.com/x', events: ['hold.reaped'] });

type Sample = (h: Harness) => Promise<{ args: string[]; env?: Record<string, string> }>;
const run =
  (...args: string[]): Sample =>
  async () => ({ args });
const on =
  (make: (h: Harness) => Promise<string>, ...args: string[]): Sample =>
  async (h) => {
    const [cmd, sub, ...rest] = args;
    return { args: [cmd!, sub!, await make(h), ...rest] };
  };

/** A working invocation of every command (fixtures made through the admin API first). */
const SAMPLES: Record<string, Sample> = {
  migrate: async () => ({ args: ['migrate'], env: { DATABASE_URL: `sqlite:${join(dir, `m${n++}.db`)}` } }),
  'token create': run('token', 'create', '--name', 'made', '--budget', 'day=50', '--expires-at', '30d'),
  'token list': run('token', 'list', '--limit', '2'),
  'token show': on(token, 'token', 'show'),
  'token usage': on(token, 'token', 'usage', '--since', '7d'),
  'token update': on(token, 'token', 'update', '--rpm', '60', '--quota', 'none'),
  'token revoke': on(token, 'token', 'revoke'),
  'token topup': on(token, 'token', 'topup', '--amount', '5'),
  'token rotate': on(token, 'token', 'rotate'),
  'token rotate-callback-secret': on(token, 'token', 'rotate-callback-secret'),
  // Account names are unique: each run (with --json and without) makes its own.
  'account create': async () => ({ args: ['account', 'create', '--name', `acme-${n++}`, '--budget', 'month=500'] }),
  'account list': run('account', 'list'),
  'account show': on(account, 'account', 'show'),
  'account update': on(account, 'account', 'update', '--weight', '2'),
  'account topup': on(account, 'account', 'topup', '--amount', '5'),
  'account revoke': on(account, 'account', 'revoke'),
  'account usage': on(account, 'account', 'usage', '--since', '2026-01-01'),
  'price-group set': run('price-group', 'set', 'resellers', '--multiplier', '0.8'),
  'price-group list': run('price-group', 'list'),
  'channel add': async () => ({
    args: [
      'channel',
      'add',
      '--name',
      `c${n++}`,
      '--kind',
      'dashscope',
      '--base-url',
      'http://127.0.0.1:9',
      '--api-key',
      'sk-x',
    ],
  }),
  'channel list': run('channel', 'list'),
  'channel show': on(channel, 'channel', 'show'),
  'channel disable': on(channel, 'channel', 'disable'),
  'channel enable': on(channel, 'channel', 'enable'),
  'channel update': on(channel, 'channel', 'update', '--weight', '3'),
  'webhook create': run('webhook', 'create', '--target', 'https://hooks.example.com/y', '--events', 'hold.reaped'),
  'webhook list': run('webhook', 'list'),
  'webhook show': on(webhook, 'webhook', 'show'),
  'webhook update': on(webhook, 'webhook', 'update', '--description', 'on-call'),
  'webhook delete': on(webhook, 'webhook', 'delete'),
  'webhook deliveries': on(webhook, 'webhook', 'deliveries'),
  // The sample target does not answer: the test's outcome is a failed attempt, still an answer.
  'webhook test': on(webhook, 'webhook', 'test'),
  'webhook redeliver': async (h) => {
    const id = await webhook(h);
    const sent = (await (await h.admin(`/admin/webhooks/${id}/test`, { method: 'POST' })).json()) as { id: string };
    // Finished (as its retries would leave it): only a finished delivery is redelivered.
    await h.store.db.updateTable('webhook_deliveries').set({ state: 'failed' }).where('id', '=', sent.id).execute();
    return { args: ['webhook', 'redeliver', id, sent.id] };
  },
  bill: run('bill', '--by', 'model', '--since', '30d'),
  stats: run('stats', '--window', '1h'),
  reconcile: run('reconcile', '--since', '1h'),
};

const isJson = (s: string) => {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
};

describe('every tollway command', { timeout: 240_000 }, () => {
  it('takes --json and answers JSON; without it, text', async () => {
    const program = buildProgram({ io: { out: () => {}, err: () => {}, env: {} }, exit: 0 });
    const all = leaves(program);
    const answering = all.filter((l) => !LONG_RUNNING.includes(l.name));
    // Every admin-API command is made by apiCommand; the store's own (migrate) and the API's all take --json.
    expect(all.filter((l) => !(API_COMMAND in l.cmd)).map((l) => l.name)).toEqual(['serve', 'migrate', 'simulate']);
    for (const { name, cmd } of answering)
      expect(
        cmd.options.map((o) => o.long),
        name,
      ).toContain('--json');
    expect(Object.keys(SAMPLES).sort()).toEqual(answering.map((l) => l.name).sort());

    for (const [name, sample] of Object.entries(SAMPLES)) {
      const json = await sample(ctx.h);
      const r = await tollwayIn(ctx.h, [...json.args, '--json'], json.env);
      expect([name, r.code, r.stderr]).toEqual([name, 0, '']);
      expect(isJson(r.stdout), `${name}: ${r.stdout}`).toBe(true);
      const text = await sample(ctx.h);
      const t = await tollwayIn(ctx.h, text.args, text.env);
      expect([name, t.code, t.stderr]).toEqual([name, 0, '']);
      expect(t.stdout.trim(), name).not.toBe('');
      expect(isJson(t.stdout), `${name} prints text without --json: ${t.stdout}`).toBe(false);
    }
  });
});

describe('tollway on a wrong command line', { timeout: 120_000 }, () => {
  it('--version prints the package version', async () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as {
      version: string;
    };
    const r = await tollway(ctx.h, ['--version']);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, `${pkg.version}\n`, '']);
  });

  it('an unknown command or option is named in one line, with a suggestion, and exits 2', async () => {
    for (const [args, line] of [
      [['tokn', 'list'], "tollway: unknown command 'tokn' (Did you mean token?)"],
      [['token', 'lst'], "tollway: unknown command 'lst' (Did you mean list?)"],
      [['token', 'list', '--limt', '5'], "tollway: unknown option '--limt' (Did you mean --limit?)"],
      [['token', 'create'], "tollway: required option '--name <name>' not specified"],
    ] as const) {
      const r = await tollway(ctx.h, [...args]);
      expect([r.code, r.stdout, r.stderr], args.join(' ')).toEqual([2, '', `${line}\n`]);
    }
  });
});

describe('tollway and the server', { timeout: 180_000 }, () => {
  it('refuse the same webhook targets: the server decides, whatever the CLI environment says', async () => {
    const h = ctx.h;
    const targets = [
      'http://127.0.0.1:8080/x',
      'http://10.1.2.3/x',
      'http://[::1]/x',
      'ftp://hooks.example.com/x',
      'https://hooks.example.com/ok',
    ];
    for (const target of targets) {
      const direct = await h.admin('/admin/webhooks', {
        method: 'POST',
        json: { url: target, events: ['hold.reaped'] },
      });
      const server = (await direct.json()) as { error?: { message: string } };
      // The CLI's own environment allows private targets: it must not matter.
      const cli = await tollway(h, ['webhook', 'create', '--target', target, '--events', 'hold.reaped'], {
        TOLLWAY_ALLOW_PRIVATE_NETWORK: 'true',
      });
      if (direct.ok) {
        expect([target, cli.code]).toEqual([target, 0]);
      } else {
        expect([target, cli.code]).toEqual([target, 1]);
        expect(cli.stderr).toContain(server.error!.message.replace(/ \(request id: \w+\)$/, ''));
        expect(cli.stderr).toMatch(/\(HTTP 400 \w+, request req_[0-9a-f]+\)\n$/);
      }
    }
    // A server that allows private targets takes what the other refused, from the same CLI environment.
    const open = await h.instance({ allowPrivateNetwork: true });
    const cli = await tollway(h, ['webhook', 'create', '--target', targets[0]!, '--events', 'hold.reaped', '--json'], {
      TOLLWAY_URL: open.url,
    });
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject({ url: targets[0] });
  });

  it('a staff key whose role may not write gets the 403 naming the role and the route; it still reads', async () => {
    const made = await ctx.h.admin('/admin/users', {
      method: 'POST',
      json: { name: 'Vera', email: 'vera@example.com', role: 'viewer' },
    });
    expect(made.status).toBe(201);
    const key = ((await made.json()) as { key: { secret: string } }).key.secret;
    expect(key).toMatch(/^tws-/);
    const write = await tollway(ctx.h, ['token', 'create', '--name', 'nope', '--key', key]);
    expect(write.code).toBe(1);
    expect(write.stdout).toBe('');
    expect(write.stderr).toMatch(
      /^tollway: permission denied: The viewer role may not POST \S*tokens \(allowed: owner, admin, operator\) \(HTTP 403 permission_denied, request req_[0-9a-f]+\)\n$/,
    );
    const read = await tollway(ctx.h, ['token', 'list', '--json'], { TOLLWAY_KEY: key });
    expect(read.code).toBe(0);
    expect(JSON.parse(read.stdout)).toHaveProperty('data');
  });

  it('an error from the API is one line with its request id; an unreachable gateway is named by its URL', async () => {
    const missing = await tollway(ctx.h, ['token', 'show', 'tok_nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^tollway: Token tok_nope not found \(HTTP 404 \w+, request req_[0-9a-f]+\)\n$/);
    const url = `http://127.0.0.1:${await freePort()}`;
    const down = await tollway(ctx.h, ['token', 'list'], { TOLLWAY_URL: url });
    expect(down.code).toBe(1);
    expect(down.stderr).toBe(
      `tollway: cannot reach the gateway at ${url} (connection refused); is it running? Set the address with --url or TOLLWAY_URL\n`,
    );
  });
});
