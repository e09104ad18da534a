// The `tollway` CLI as an operator runs it (bin/tollway.mjs), against a real gateway on the suite's dialect: its
// commands go through the admin API (the server's rules and audit lines), `migrate` alone opens the store; channels
// and reconcile here, tokens in token-cli.test.ts. Spawning is slow, so few tests, each doing several steps.
import { describe, expect, it } from 'vitest';
import { audited, okJson, okText, tollway as run } from '../support/cli.ts';
import { useHarness } from '../support/harness.ts';
import { testDialect } from '../support/store.ts';

const KEY_CANARY = 'sk-CLI-CANARY-0123456789abcdef';
const ctx = useHarness({ channels: false });
const tollway = (args: string[], extra: Record<string, string> = {}) => run(ctx.h, args, extra);
const ok = <T = Record<string, unknown>>(args: string[]) => okJson<T>(ctx.h, args);
const text = (args: string[]) => okText(ctx.h, args);

/** The store the harness's gateway runs on, as another process opens it. */
const storeUrl = () =>
  ctx.h.pgSchema
    ? `${ctx.h.config.databaseUrl}?options=${encodeURIComponent(`-c search_path=${ctx.h.pgSchema}`)}`
    : ctx.h.config.databaseUrl;

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
    const plain = await tollway(['migrate'], { DATABASE_URL: storeUrl() });
    expect([plain.code, plain.stdout, plain.stderr]).toEqual([0, `migrations applied (${testDialect()})\n`, '']);
    const json = await tollway(['migrate', '--json'], { DATABASE_URL: storeUrl() });
    expect([json.code, JSON.parse(json.stdout)]).toEqual([0, { migrated: true, dialect: testDialect() }]);
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
    expect(await audited(ctx.h)).toEqual([
      `channel.create ${ds.id}`,
      `channel.create ${kl.id}`,
      `channel.disable ${kl.id}`,
    ]);

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
    expect(await audited(ctx.h)).toHaveLength(3);
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

  it('an unknown id: one line and exit 1, nothing audited', async () => {
    const before = (await audited(ctx.h)).length;
    for (const args of [
      ['token', 'revoke', 'tok_nope'],
      ['channel', 'disable', 'ch_nope'],
    ]) {
      const r = await tollway(args);
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect((await audited(ctx.h)).length).toBe(before);
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
