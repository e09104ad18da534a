// `tollway token …` as an operator runs it (bin/tollway.mjs), against a real gateway on the suite's dialect: the
// secrets printed once, paging, edits with the admin API's rules and audit lines (a channel's edit among them).
import { describe, expect, it } from 'vitest';
import { TokenCallbackSigner } from '../../src/tasks/callback-signing.ts';
import { audited, okJson, okText, tollway as run } from '../support/cli.ts';
import { useHarness } from '../support/harness.ts';

const KEY_CANARY = 'sk-CLI-CANARY-0123456789abcdef';
// With the simulator's channels: /v1/models lists a model only where a channel serves it.
const ctx = useHarness();
const tollway = (args: string[], extra: Record<string, string> = {}) => run(ctx.h, args, extra);
const ok = <T = Record<string, unknown>>(args: string[]) => okJson<T>(ctx.h, args);
const text = (args: string[]) => okText(ctx.h, args);

const tokenOf = (stdout: string) => /token:\s+(\S+)/.exec(stdout)?.[1] ?? '';
const idOf = (stdout: string) => /id:\s+(\S+)/.exec(stdout)?.[1] ?? '';
const callbackSecretOf = (stdout: string) => /callback secret:\s+(\S+)/.exec(stdout)?.[1] ?? '';

describe('tollway token', { timeout: 180_000 }, () => {
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
    expect((await audited(ctx.h)).slice(-3)).toEqual([
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
    expect((await audited(ctx.h)).slice(-6)).toEqual([
      `token.update ${id}`,
      `token.update ${id}`,
      `token.topup ${id}`,
      `token.rotate ${id}`,
      `channel.create ${ch.id}`,
      `channel.update ${ch.id}`,
    ]);
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
    expect((await audited(ctx.h)).slice(-3)).toEqual([
      `token.create ${id}`,
      `token.callback_secret.rotate ${id}`,
      `token.callback_secret.rotate ${id}`,
    ]);
  });
});
