// The `tollway` CLI as an operator runs it (bin/tollway.mjs → tsx), on the suite's dialect: a SQLite file, or a
// PostgreSQL schema of its own (search_path in the URL). Spawning is slow, so few tests, each doing several steps.
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveSecrets } from '../../src/bootstrap.ts';
import { startGateway } from '../../src/process-life.ts';
import { loadConfig } from '../../src/config/config.ts';
import { TokenCallbackSigner } from '../../src/tasks/callback-signing.ts';
import { runProcess, type Ran } from '../support/run-process.ts';
import { TOLLWAY_BIN } from '../support/serve-process.ts';
import { testDialect, useStore } from '../support/store.ts';
import { tempDir } from '../support/temp-dir.ts';

const KEY_CANARY = 'sk-CLI-CANARY-0123456789abcdef';
const dir = tempDir('tollway-cli-');
const fresh = useStore();
let env: Record<string, string>;

beforeAll(() => {
  // PostgreSQL: the CLI reaches the test's own schema through search_path in the URL.
  const databaseUrl = fresh.pgSchema
    ? `${fresh.url}?options=${encodeURIComponent(`-c search_path=${fresh.pgSchema}`)}`
    : fresh.url;
  env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dir,
    DATABASE_URL: databaseUrl,
    TOLLWAY_DATA_DIR: dir,
  };
});

function tollway(args: string[], extraEnv: Record<string, string> = {}): Promise<Ran> {
  return runProcess(process.execPath, [TOLLWAY_BIN, ...args], { env: { ...env, ...extraEnv }, timeoutMs: 60_000 });
}

async function ok(args: string[]): Promise<string> {
  const r = await tollway(args);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
}

const tokenOf = (stdout: string) => /token:\s+(\S+)/.exec(stdout)?.[1] ?? '';
const idOf = (stdout: string) => /id:\s+(\S+)/.exec(stdout)?.[1] ?? '';
const callbackSecretOf = (stdout: string) => /callback secret:\s+(\S+)/.exec(stdout)?.[1] ?? '';

async function auditedByCli(): Promise<string[]> {
  const rows = await fresh.store.db
    .selectFrom('audit_log')
    .select(['action', 'target'])
    .where('actor', '=', 'cli')
    .orderBy('id')
    .execute();
  return rows.map((r) => `${r.action} ${r.target}`);
}

// Each test runs the CLI several times (up to 60 s each): under a loaded machine the default 30 s is too short.
describe('tollway CLI', { timeout: 180_000 }, () => {
  it('a bad configuration value stops it with one clear line and a non-zero exit', async () => {
    const r = await tollway(['migrate'], { PORT: 'eighty' });
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim()).toBe('tollway: configuration error: PORT must be an integer, got "eighty"');
    const r2 = await tollway(['migrate'], { DASHSCOPE_BASE_URL: 'https://dashscope-intl.aliyuncs.com' });
    expect(r2.code).not.toBe(0);
    expect(r2.stderr.trim().split('\n')).toHaveLength(1);
    expect(r2.stderr).toMatch(
      /^tollway: configuration error: DASHSCOPE_BASE_URL points at dashscope-intl\.aliyuncs\.com/,
    );
  });

  it('help, at the top or after a command, prints the usage and exits 0 — even with a configuration that would not start', async () => {
    for (const args of [['--help'], ['help'], ['token', '--help'], ['channel', 'add', '-h']]) {
      const r = await tollway(args, { PORT: 'eighty' });
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout).toContain('Usage: tollway <command>');
      expect(r.stderr).toBe('');
    }
  });

  it('migrate applies the migrations', async () => {
    expect(await ok(['migrate'])).toContain(`migrations applied (${testDialect()})`);
  });

  it('channel add / list / disable: keys are never printed, a disabled channel is listed as such, each change is audited', async () => {
    const ds = JSON.parse(
      await ok([
        'channel',
        'add',
        '--name',
        'cli-ds',
        '--kind',
        'dashscope',
        '--base-url',
        'http://127.0.0.1:9',
        '--api-key',
        KEY_CANARY,
        '--models',
        'qwx3.7-plus,text-embedding-v4',
        '--priority=-5',
        '--weight',
        '3',
      ]),
    ) as { id: string };
    expect(ds).toMatchObject({ name: 'cli-ds', kind: 'dashscope', status: 'enabled', priority: -5, weight: 3 });
    const kl = JSON.parse(
      await ok([
        'channel',
        'add',
        '--name',
        'cli-kl',
        '--kind',
        'kling',
        '--base-url',
        'http://127.0.0.1:9',
        '--access-key',
        'ak-cli',
        '--secret-key',
        KEY_CANARY,
      ]),
    ) as { id: string };
    expect(await ok(['channel', 'disable', kl.id])).toBe(`disabled ${kl.id}\n`);

    const list = await ok(['channel', 'list']);
    expect(list).not.toContain(KEY_CANARY);
    const byName = Object.fromEntries(
      (JSON.parse(list) as Array<{ name: string; status: string }>).map((c) => [c.name, c.status]),
    );
    expect(byName).toEqual({ 'cli-ds': 'enabled', 'cli-kl': 'disabled' });
    expect(await auditedByCli()).toEqual([
      `channel.create ${ds.id}`,
      `channel.create ${kl.id}`,
      `channel.disable ${kl.id}`,
    ]);

    // The same validation as the admin API: a model the kind does not serve is refused, nothing is stored.
    const wrong = await tollway([
      'channel',
      'add',
      '--name',
      'cli-bad',
      '--kind',
      'kling',
      '--access-key',
      'a',
      '--secret-key',
      'b',
      '--models',
      'qwx3.7-plus',
    ]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toBe('tollway: Model qwx3.7-plus is not served by a kling channel\n');
    // A flag the subcommand would ignore is refused, not dropped.
    for (const [args, flag] of [
      [['channel', 'add', '--name', 'cli-x', '--kind', 'dashscope', '--api-key', 'k', '--enable'], '--enable'],
      [['token', 'create', '--name', 'x', '--amount', '5'], '--amount'],
      [['token', 'rotate', 'tok_x', '--quota', '5'], '--quota'],
      [['token', 'revoke', 'tok_x', '--quota', '5'], '--quota'],
      [['channel', 'list', '--name', 'x'], '--name'],
    ] as const) {
      const r = await tollway([...args]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`does not take ${flag}`);
    }
    expect(await auditedByCli()).toHaveLength(3);
  });

  it('token create / list / revoke: the token is printed once; a gateway on the same store takes it, and refuses it once revoked', async () => {
    const kept = await ok([
      'token',
      'create',
      '--name',
      'kept',
      '--models',
      'qwx3.7-plus,text-embedding-v4',
      '--quota',
      '5',
      '--rpm',
      '30',
      '--tpm',
      '1000',
      '--concurrency',
      '2',
    ]);
    const token = tokenOf(kept);
    expect(token).toMatch(/^tw-/);
    expect(kept.split(token).length - 1).toBe(1);
    const gone = await ok(['token', 'create', '--name', 'gone']);
    expect(await ok(['token', 'revoke', idOf(gone)])).toBe(`revoked ${idOf(gone)}\n`);

    const tokens = await ok(['token', 'list']);
    expect(tokens).not.toContain(token);
    const byName = Object.fromEntries(
      (
        JSON.parse(tokens) as Array<{
          name: string;
          quota: number | null;
          revoked_at: number | null;
          tpm_limit: number | null;
        }>
      ).map((t) => [t.name, t]),
    );
    expect(byName.kept).toMatchObject({
      quota: 5,
      rpm_limit: 30,
      tpm_limit: 1000,
      concurrency_limit: 2,
      revoked_at: null,
    });
    expect(byName.gone?.revoked_at).toEqual(expect.any(Number));
    expect((await auditedByCli()).slice(-3)).toEqual([
      `token.create ${idOf(kept)}`,
      `token.create ${idOf(gone)}`,
      `token.revoke ${idOf(gone)}`,
    ]);

    const config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
    const { adminKey, secret } = resolveSecrets(config);
    const gw = await startGateway(
      { ...config, tasks: { ...config.tasks, pollerEnabled: false } },
      { adminKey, secret, store: fresh.store },
    );
    try {
      const models = await gw.app.inject({
        method: 'GET',
        url: '/v1/models',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(models.statusCode).toBe(200);
      expect((models.json() as { data: Array<{ id: string }> }).data.map((m) => m.id)).toEqual([
        'qwx3.7-plus',
        'text-embedding-v4',
      ]);
      const revoked = await gw.app.inject({
        method: 'GET',
        url: '/v1/models',
        headers: { authorization: `Bearer ${tokenOf(gone)}` },
      });
      expect(revoked.statusCode).toBe(401);
      // The CLI sealed the channel key with the data dir's secret: the gateway reads it back; the disabled one is not
      // in use.
      expect(gw.deps.channels.all().find((c) => c.name === 'cli-ds')?.keys.apiKey).toBe(KEY_CANARY);
      expect(gw.deps.channels.all().map((c) => c.name)).not.toContain('cli-kl');
    } finally {
      await gw.close();
    }
  });

  it('token update / topup / rotate and channel update: same rules as the admin API, audited, the new secret printed once', async () => {
    const id = idOf(await ok(['token', 'create', '--name', 'edit-me', '--quota', '100']));
    expect(
      JSON.parse(
        await ok(['token', 'update', id, '--name', 'edited', '--rpm', '7', '--tpm', '900', '--models', 'qwx3.7-plus']),
      ),
    ).toMatchObject({
      name: 'edited',
      rpm_limit: 7,
      tpm_limit: 900,
      models: ['qwx3.7-plus'],
      quota: 100,
    });
    expect(JSON.parse(await ok(['token', 'update', id, '--rpm', 'none']))).toMatchObject({ rpm_limit: null });
    const bad = await tollway(['token', 'update', id, '--quota', '-3']);
    expect(bad.code).not.toBe(0);
    expect(JSON.parse(await ok(['token', 'topup', id, '--amount', '250']))).toMatchObject({
      quota: 350,
      topup: { amount: 250, credited: true },
    });
    const credit = await fresh.store.db
      .selectFrom('ledger')
      .select(['kind', 'amount'])
      .where('token_id', '=', id)
      .execute();
    expect(credit.map((c) => ({ kind: c.kind, amount: Number(c.amount) }))).toEqual([{ kind: 'credit', amount: 250 }]);
    const rotated = await ok(['token', 'rotate', id, '--grace-ms', '60000']);
    expect(idOf(rotated)).toBe(id);
    expect(tokenOf(rotated)).toMatch(/^tw-/);
    expect(rotated).toContain('the previous token works until');

    const ch = JSON.parse(
      await ok([
        'channel',
        'add',
        '--name',
        'cli-edit',
        '--kind',
        'dashscope',
        '--base-url',
        'http://127.0.0.1:9',
        '--api-key',
        KEY_CANARY,
      ]),
    ) as {
      id: string;
    };
    const edited = await ok([
      'channel',
      'update',
      ch.id,
      '--weight',
      '4',
      '--priority=-2',
      '--disable',
      '--api-key',
      `${KEY_CANARY}-2`,
    ]);
    expect(edited).not.toContain(KEY_CANARY);
    expect(JSON.parse(edited)).toMatchObject({
      weight: 4,
      priority: -2,
      status: 'disabled',
      keys: { api_key: '****ef-2' },
    });
    expect((await auditedByCli()).slice(-6)).toEqual([
      `token.update ${id}`,
      `token.update ${id}`,
      `token.topup ${id}`,
      `token.rotate ${id}`,
      `channel.create ${ch.id}`,
      `channel.update ${ch.id}`,
    ]);
  });

  it('--models given empty (an empty variable in a script) is a usage error, never "every model"; nothing is stored', async () => {
    const tokensBefore = await fresh.store.db.selectFrom('tokens').select('id').execute();
    const channelsBefore = await fresh.store.db.selectFrom('channels').select('id').execute();
    for (const args of [
      ['token', 'create', '--name', 'scripted', '--models', ''],
      ['token', 'create', '--name', 'scripted', '--models', ' , '],
      ['channel', 'add', '--name', 'scripted', '--kind', 'dashscope', '--api-key', 'sk-x', '--models', ''],
    ]) {
      const r = await tollway(args);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('--models needs one or more model names');
      expect(r.stdout).not.toMatch(/token:/);
    }
    expect(await fresh.store.db.selectFrom('tokens').select('id').execute()).toEqual(tokensBefore);
    expect(await fresh.store.db.selectFrom('channels').select('id').execute()).toEqual(channelsBefore);
  });

  it('token create prints the callback secret once; rotate-callback-secret replaces it, the old one signing on for --grace-ms', async () => {
    const created = await ok(['token', 'create', '--name', 'hooks']);
    const id = idOf(created);
    const first = callbackSecretOf(created);
    expect(first).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.split(first).length - 1).toBe(1);
    const rotated = await ok(['token', 'rotate-callback-secret', id, '--grace-ms', '60000']);
    const second = callbackSecretOf(rotated);
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);
    expect(rotated).toMatch(/signed with the previous one too until \d{4}-/);
    const dropped = await ok(['token', 'rotate-callback-secret', id, '--grace-ms', '0']);
    const third = callbackSecretOf(dropped);
    expect(dropped).toContain('callbacks are no longer signed with the previous one');
    expect((await tollway(['token', 'rotate-callback-secret', id, '--quota', '5'])).stderr).toContain(
      'does not take --quota',
    );

    // What a gateway on the same store (the data dir's secret) signs with, after each step: the last secret printed.
    const config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
    const { adminKey, secret } = resolveSecrets(config);
    const gw = await startGateway(
      { ...config, tasks: { ...config.tasks, pollerEnabled: false } },
      { adminKey, secret, store: fresh.store },
    );
    try {
      expect(await new TokenCallbackSigner(gw.deps.repos.tokens, gw.deps.box).secretsFor(id)).toEqual([third]);
    } finally {
      await gw.close();
    }
    // Shown only where printed: never in the list, nor in the audit lines.
    const listed = await ok(['token', 'list']);
    const audit = JSON.stringify(await fresh.store.db.selectFrom('audit_log').selectAll().execute());
    for (const s of [first, second, third]) {
      expect(listed).not.toContain(s);
      expect(audit).not.toContain(s);
    }
    expect(listed).not.toContain('whsec_');
    expect((await auditedByCli()).slice(-3)).toEqual([
      `token.create ${id}`,
      `token.callback_secret.rotate ${id}`,
      `token.callback_secret.rotate ${id}`,
    ]);
  });

  it('an unknown id: one line and a non-zero exit, nothing audited', async () => {
    const before = (await auditedByCli()).length;
    for (const args of [
      ['token', 'revoke', 'tok_nope'],
      ['channel', 'disable', 'ch_nope'],
    ]) {
      const r = await tollway(args);
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect((await auditedByCli()).length).toBe(before);
  });

  it('reconcile: a clean period exits 0 with zero difference; a charge without its request-log row is named and exits 1', async () => {
    const from = Date.now() - 1000;
    const clean = await tollway(['reconcile', '--from', String(from), '--to', String(Date.now() + 1000)]);
    expect(clean.code).toBe(0);
    expect(JSON.parse(clean.stdout)).toMatchObject({ difference: 0, mismatches: [], open_holds: [] });
    await fresh.store.db
      .insertInto('ledger')
      .values({
        idempotency_key: 'req_cli_orphan',
        token_id: 'tok_x',
        model: 'qwx3.7-plus',
        kind: 'tokens',
        quantities: '{"input_tokens":10,"output_tokens":0}',
        unit_prices: '{"input_per_1k":800,"output_per_1k":2000}',
        amount: 8,
        request_id: 'req_cli_orphan',
        task_id: null,
        upstream_request_id: null,
        created_at: Date.now(),
      })
      .execute();
    const off = await tollway(['reconcile', '--from', String(from), '--to', String(Date.now() + 1000)]);
    expect(off.code).toBe(1);
    const report = JSON.parse(off.stdout) as { difference: number; mismatches: Array<{ key: string; reason: string }> };
    // Its usage is unknown: named apart, and not counted as a difference.
    expect(report.difference).toBe(0);
    expect(report.mismatches).toEqual([
      expect.objectContaining({ key: 'req_cli_orphan', reason: 'request-log row missing' }),
    ]);
  });
});
