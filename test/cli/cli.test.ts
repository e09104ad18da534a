// The `tollway` CLI as an operator runs it (bin/tollway.mjs), against a real gateway on the suite's dialect: its
// commands go through the admin API (the server's rules and audit lines), `migrate` alone opens the store.
// Spawning is slow, so few tests, each doing several steps.
import { describe, expect, it } from 'vitest';
import { TokenCallbackSigner } from '../../src/tasks/callback-signing.ts';
import { okJson, okText, tollway as run } from '../support/cli.ts';
import { useHarness } from '../support/harness.ts';
import { testDialect } from '../support/store.ts';

const KEY_CANARY = 'sk-CLI-CANARY-0123456789abcdef';
const ctx = useHarness({ channels: false });
const tollway = (args: string[], extra: Record<string, string> = {}) => run(ctx.h, args, extra);
const ok = <T = Record<string, unknown>>(args: string[]) => okJson<T>(ctx.h, args);
const text = (args: string[]) => okText(ctx.h, args);

const tokenOf = (stdout: string) => /token:\s+(\S+)/.exec(stdout)?.[1] ?? '';
const idOf = (stdout: string) => /id:\s+(\S+)/.exec(stdout)?.[1] ?? '';
const callbackSecretOf = (stdout: string) => /callback secret:\s+(\S+)/.exec(stdout)?.[1] ?? '';
/** The store the harness's gateway runs on, as another process opens it. */
const storeUrl = () =>
  ctx.h.pgSchema
    ? `${ctx.h.config.databaseUrl}?options=${encodeURIComponent(`-c search_path=${ctx.h.pgSchema}`)}`
    : ctx.h.config.databaseUrl;

/** The admin API's audit lines, as "action target", of the token and channel changes. */
async function audited(): Promise<string[]> {
  const rows = await ctx.h.store.db
    .selectFrom('audit_log')
    .select(['action', 'target'])
    .where('actor', '=', 'admin')
    .where((w) => w.or([w('action', 'like', 'token.%'), w('action', 'like', 'channel.%')]))
    .orderBy('id')
    .execute();
  return rows.map((r) => `${r.action} ${r.target}`);
}

// Each test runs the CLI several times: under a loaded machine the default 30 s is too short.
describe('tollway CLI', { timeout: 180_000 }, () => {
  it('a bad configuration value stops a store command with one clear line and a non-zero exit', async () => {
    const r = await tollway(['migrate'], { PORT: 'eighty', DATABASE_URL: storeUrl() });
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim()).toBe('tollway: configuration error: PORT must be an integer, got "eighty"');
    const r2 = await tollway(['migrate'], {
      DASHSCOPE_BASE_URL: 'https://dashscope-intl.aliyuncs.com',
      DATABASE_URL: storeUrl(),
    });
    expect(r2.code).not.toBe(0);
    expect(r2.stderr.trim().split('\n')).toHaveLength(1);
    expect(r2.stderr).toMatch(
      /^tollway: configuration error: DASHSCOPE_BASE_URL points at dashscope-intl\.aliyuncs\.com/,
    );
  });

  it('help, at the top or after a command, prints the usage and exits 0 — even with a configuration that would not start', async () => {
    for (const [args, usage] of [
      [['--help'], 'Usage: tollway [options] [command]'],
      [['help'], 'Usage: tollway [options] [command]'],
      [['token', '--help'], 'Usage: tollway token [options] [command]'],
      [['channel', 'add', '-h'], 'Usage: tollway channel add [options]'],
    ] as const) {
      const r = await tollway([...args], { PORT: 'eighty' });
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout).toContain(usage);
      expect(r.stderr).toBe('');
    }
  });

  it('migrate applies the migrations to DATABASE_URL', async () => {
    expect(await text(['migrate'])).toBe(`migrations applied (${testDialect()})\n`);
    expect(await okJson(ctx.h, ['migrate'])).toEqual({ migrated: true, dialect: testDialect() });
  });

  it('channel add / list / disable: keys are never printed, a disabled channel is listed as such, each change is audited', async () => {
    const ds = await ok<{ id: string }>([
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
    ]);
    expect(ds).toMatchObject({ name: 'cli-ds', kind: 'dashscope', status: 'enabled', priority: -5, weight: 3 });
    const kl = await ok<{ id: string }>([
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
    ]);
    expect(await text(['channel', 'disable', kl.id])).toBe(`disabled ${kl.id} (cli-kl)\n`);

    const list = await ok<{ data: Array<{ name: string; status: string }> }>(['channel', 'list']);
    expect(JSON.stringify(list)).not.toContain(KEY_CANARY);
    expect(Object.fromEntries(list.data.map((c) => [c.name, c.status]))).toEqual({
      'cli-ds': 'enabled',
      'cli-kl': 'disabled',
    });
    const table = await text(['channel', 'list']);
    expect(table).not.toContain(KEY_CANARY);
    expect(table).toMatch(/cli-kl\s+kling\s+disabled/);
    expect(await audited()).toEqual([`channel.create ${ds.id}`, `channel.create ${kl.id}`, `channel.disable ${kl.id}`]);

    // The admin API's validation: a model the kind does not serve is refused, nothing is stored.
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
    expect(wrong.stderr).toMatch(
      /^tollway: Model qwx3\.7-plus is not served by a kling channel \(HTTP 400 \w+, request req_\w+\)\n$/,
    );
    // A flag the command does not take is refused (exit 2), not dropped.
    for (const [args, flag] of [
      [['channel', 'add', '--name', 'cli-x', '--kind', 'dashscope', '--api-key', 'k', '--enable'], '--enable'],
      [['token', 'create', '--name', 'x', '--amount', '5'], '--amount'],
      [['token', 'rotate', 'tok_x', '--quota', '5'], '--quota'],
      [['token', 'revoke', 'tok_x', '--quota', '5'], '--quota'],
      [['channel', 'list', '--name', 'x'], '--name'],
    ] as const) {
      const r = await tollway([...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`unknown option '${flag}'`);
    }
    expect(await audited()).toHaveLength(3);
  });

  it('token create / list / show / revoke: the secret is printed once; the gateway takes it, and refuses it once revoked', async () => {
    const kept = await text([
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
    expect(kept).toContain('shown only this once');
    const gone = await ok<{ id: string; token: string }>(['token', 'create', '--name', 'gone']);
    expect(gone.token).toMatch(/^tw-/);
    expect(await text(['token', 'revoke', gone.id])).toBe(`revoked ${gone.id} (gone)\n`);

    const tokens = await ok<{ data: Array<Record<string, unknown>> }>(['token', 'list']);
    expect(JSON.stringify(tokens)).not.toContain(token);
    const byName = Object.fromEntries(tokens.data.map((t) => [t.name, t]));
    expect(byName.kept).toMatchObject({
      quota: 5,
      rpm_limit: 30,
      tpm_limit: 1000,
      concurrency_limit: 2,
      revoked_at: null,
    });
    expect(byName.gone?.revoked_at).toEqual(expect.any(Number));
    expect(await ok(['token', 'show', idOf(kept)])).toMatchObject({ id: idOf(kept), name: 'kept', quota: 5 });
    expect((await audited()).slice(-3)).toEqual([
      `token.create ${idOf(kept)}`,
      `token.create ${gone.id}`,
      `token.revoke ${gone.id}`,
    ]);

    const models = await ctx.h.fetch('/v1/models', { token });
    expect(models.status).toBe(200);
    expect(((await models.json()) as { data: Array<{ id: string }> }).data.map((m) => m.id)).toEqual([
      'qwx3.7-plus',
      'text-embedding-v4',
    ]);
    expect((await ctx.h.fetch('/v1/models', { token: gone.token })).status).toBe(401);
  });

  it('token list pages: --limit, then --after the next_cursor, to the end', async () => {
    for (const name of ['p1', 'p2', 'p3']) await ok(['token', 'create', '--name', name]);
    const seen: string[] = [];
    let after: string | undefined;
    for (let pages = 0; pages < 50; pages++) {
      const page = await ok<{ data: Array<{ id: string }>; has_more: boolean; next_cursor?: string }>([
        'token',
        'list',
        '--limit',
        '2',
        ...(after ? ['--after', after] : []),
      ]);
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((t) => t.id));
      if (!page.has_more) break;
      after = page.next_cursor;
    }
    const all = await ok<{ data: Array<{ id: string }>; has_more: boolean }>(['token', 'list', '--limit', '1000']);
    expect(all.has_more).toBe(false);
    expect(seen).toEqual(all.data.map((t) => t.id));
    // The text form says how to ask for the next page.
    expect(await text(['token', 'list', '--limit', '1'])).toMatch(/\nmore: repeat with --after \S+\n$/);
  });

  it('token update / topup / rotate and channel update: the admin API rules, audited, the new secret printed once', async () => {
    const id = idOf(await text(['token', 'create', '--name', 'edit-me', '--quota', '100']));
    expect(
      await ok(['token', 'update', id, '--name', 'edited', '--rpm', '7', '--tpm', '900', '--models', 'qwx3.7-plus']),
    ).toMatchObject({ name: 'edited', rpm_limit: 7, tpm_limit: 900, models: ['qwx3.7-plus'], quota: 100 });
    expect(await ok(['token', 'update', id, '--rpm', 'none'])).toMatchObject({ rpm_limit: null });
    const bad = await tollway(['token', 'update', id, '--quota', '-3']);
    expect(bad.code).toBe(2);
    expect(await ok(['token', 'topup', id, '--amount', '250'])).toMatchObject({
      quota: 350,
      topup: { amount: 250, credited: true },
    });
    const credit = await ctx.h.store.db
      .selectFrom('ledger')
      .select(['kind', 'amount'])
      .where('token_id', '=', id)
      .execute();
    expect(credit.map((c) => ({ kind: c.kind, amount: Number(c.amount) }))).toEqual([{ kind: 'credit', amount: 250 }]);
    const rotated = await text(['token', 'rotate', id, '--grace-ms', '60000']);
    expect(idOf(rotated)).toBe(id);
    expect(tokenOf(rotated)).toMatch(/^tw-/);
    expect(rotated).toContain('the previous token works until');

    const ch = await ok<{ id: string }>([
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
    ]);
    const edited = await tollway([
      'channel',
      'update',
      ch.id,
      '--weight',
      '4',
      '--priority=-2',
      '--disable',
      '--api-key',
      `${KEY_CANARY}-2`,
      '--json',
    ]);
    expect(edited.stdout).not.toContain(KEY_CANARY);
    expect(JSON.parse(edited.stdout)).toMatchObject({
      weight: 4,
      priority: -2,
      status: 'disabled',
      keys: { api_key: '****ef-2' },
    });
    expect((await audited()).slice(-6)).toEqual([
      `token.update ${id}`,
      `token.update ${id}`,
      `token.topup ${id}`,
      `token.rotate ${id}`,
      `channel.create ${ch.id}`,
      `channel.update ${ch.id}`,
    ]);
  });

  it('--models given empty (an empty variable in a script) is a usage error, never "every model"; nothing is stored', async () => {
    const tokensBefore = await ctx.h.store.db.selectFrom('tokens').select('id').execute();
    const channelsBefore = await ctx.h.store.db.selectFrom('channels').select('id').execute();
    for (const args of [
      ['token', 'create', '--name', 'scripted', '--models', ''],
      ['token', 'create', '--name', 'scripted', '--models', ' , '],
      ['channel', 'add', '--name', 'scripted', '--kind', 'dashscope', '--api-key', 'sk-x', '--models', ''],
    ]) {
      const r = await tollway(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--models needs one or more model names');
      expect(r.stdout).toBe('');
    }
    expect(await ctx.h.store.db.selectFrom('tokens').select('id').execute()).toEqual(tokensBefore);
    expect(await ctx.h.store.db.selectFrom('channels').select('id').execute()).toEqual(channelsBefore);
  });

  it('token create prints the callback secret once; rotate-callback-secret replaces it, the old one signing on for --grace-ms', async () => {
    const created = await text(['token', 'create', '--name', 'hooks']);
    const id = idOf(created);
    const first = callbackSecretOf(created);
    expect(first).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.split(first).length - 1).toBe(1);
    const rotated = await text(['token', 'rotate-callback-secret', id, '--grace-ms', '60000']);
    const second = callbackSecretOf(rotated);
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);
    expect(rotated).toMatch(/signed with the previous one too until \d{4}-/);
    const dropped = await text(['token', 'rotate-callback-secret', id, '--grace-ms', '0']);
    const third = callbackSecretOf(dropped);
    expect(dropped).toContain('callbacks are no longer signed with the previous one');
    expect((await tollway(['token', 'rotate-callback-secret', id, '--quota', '5'])).stderr).toContain(
      "unknown option '--quota'",
    );
    // What the gateway signs with after each step: the last secret printed.
    const gw = ctx.h.gw;
    expect(await new TokenCallbackSigner(gw.deps.repos.tokens, gw.deps.box).secretsFor(id)).toEqual([third]);
    // Shown only where printed: never in the list, nor in the audit lines.
    const listed = await text(['token', 'list', '--json']);
    const audit = JSON.stringify(await ctx.h.store.db.selectFrom('audit_log').selectAll().execute());
    for (const s of [first, second, third]) {
      expect(listed).not.toContain(s);
      expect(audit).not.toContain(s);
    }
    expect(listed).not.toContain('whsec_');
    expect((await audited()).slice(-3)).toEqual([
      `token.create ${id}`,
      `token.callback_secret.rotate ${id}`,
      `token.callback_secret.rotate ${id}`,
    ]);
  });

  it('an unknown id: one line and exit 1, nothing audited', async () => {
    const before = (await audited()).length;
    for (const args of [
      ['token', 'revoke', 'tok_nope'],
      ['channel', 'disable', 'ch_nope'],
    ]) {
      const r = await tollway(args);
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect((await audited()).length).toBe(before);
  });

  it('reconcile: a clean period exits 0 with zero difference; a charge without its request-log row is named and exits 1', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const clean = await tollway(['reconcile', '--since', since, '--json']);
    expect(clean.code).toBe(0);
    expect(JSON.parse(clean.stdout)).toMatchObject({ difference: 0, mismatches: [], open_holds: [] });
    await ctx.h.store.db
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
    // --from/--to: the old names, kept for one release (milliseconds as before).
    const off = await tollway([
      'reconcile',
      '--from',
      String(Date.parse(since)),
      '--to',
      String(Date.now() + 1000),
      '--json',
    ]);
    expect(off.code).toBe(1);
    const report = JSON.parse(off.stdout) as { difference: number; mismatches: Array<{ key: string; reason: string }> };
    // Its usage is unknown: named apart, and not counted as a difference.
    expect(report.difference).toBe(0);
    expect(report.mismatches).toEqual([
      expect.objectContaining({ key: 'req_cli_orphan', reason: 'request-log row missing' }),
    ]);
    const words = await tollway(['reconcile', '--since', '1h']);
    expect(words.code).toBe(1);
    expect(words.stdout).toMatch(/req_cli_orphan\s+qwx3\.7-plus.*request-log row missing/);
    expect(words.stdout).toMatch(/needs a look\n$/);
  });
});
