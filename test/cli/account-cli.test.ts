// `tollway account …` and `tollway price-group …` as an operator runs them (bin/tollway.mjs), against a real gateway
// on the suite's dialect: the admin API's operations and validation, audited as the admin key's.
import { describe, expect, it } from 'vitest';
import { okJson, tollway as run } from '../support/cli.ts';
import { useHarness } from '../support/harness.ts';

const ctx = useHarness({ channels: false });
const tollway = (args: string[]) => run(ctx.h, args);
const ok = <T = Record<string, unknown>>(args: string[]) => okJson<T>(ctx.h, args);

describe('tollway account / price-group', { timeout: 240_000 }, () => {
  it('creates a price group and an account, gives it a token with a budget, tops it up, edits and revokes it', async () => {
    expect(await ok(['price-group', 'set', 'resellers', '--multiplier', '0.8'])).toMatchObject({
      name: 'resellers',
      multiplier: 0.8,
    });
    const acc = await ok<{ id: string }>([
      'account',
      'create',
      '--name',
      'Acme',
      '--quota',
      '1000',
      '--budget',
      'month=500',
      '--price-group',
      'resellers',
      '--time-zone',
      'Europe/Paris',
    ]);
    expect(acc).toMatchObject({
      name: 'Acme',
      quota: 1000,
      budgets: [{ period: 'month', limit: 500 }],
      price_group: 'resellers',
      time_zone: 'Europe/Paris',
    });
    const tok = await tollway(['token', 'create', '--name', 'acme-web', '--account', acc.id, '--budget', 'day=50']);
    expect(tok.code).toBe(0);
    const tokenId = /id:\s+(\S+)/.exec(tok.stdout)?.[1];
    const row = await ctx.h.store.db
      .selectFrom('tokens')
      .select(['account_id', 'budgets'])
      .where('id', '=', tokenId!)
      .executeTakeFirstOrThrow();
    expect([row.account_id, JSON.parse(row.budgets!)]).toEqual([acc.id, [{ period: 'day', limit: 50 }]]);
    expect(await ok(['account', 'topup', acc.id, '--amount', '250', '--idempotency-key', 'k'])).toMatchObject({
      quota: 1250,
      topup: { credited: true },
    });
    expect(await ok(['account', 'topup', acc.id, '--amount', '250', '--idempotency-key', 'k'])).toMatchObject({
      quota: 1250,
      topup: { credited: false },
    });
    expect(await ok(['account', 'update', acc.id, '--budget', 'none', '--price-group', 'none'])).toMatchObject({
      budgets: [],
      price_group: null,
    });
    const usage = await ok<{ tokens: string[]; usage: { credited: number } }>(['account', 'usage', acc.id]);
    expect(usage.tokens).toEqual([tokenId]);
    expect(usage.usage.credited).toBe(250);
    expect(
      (await ok<{ data: Array<{ id: string }> }>(['account', 'list', '--limit', '10'])).data.map((a) => a.id),
    ).toContain(acc.id);
    expect((await ok<{ revoked_at: number }>(['account', 'revoke', acc.id])).revoked_at).toBeGreaterThan(0);
    const audit = await ctx.h.store.db
      .selectFrom('audit_log')
      .select('action')
      .where('actor', '=', 'admin')
      .orderBy('id')
      .execute();
    expect(audit.map((a) => a.action)).toEqual([
      'price_group.create',
      'account.create',
      'token.create',
      'account.topup',
      'account.update',
      'account.revoke',
    ]);
  });

  it("refuses bad flags in one line with the admin API's words", async () => {
    const r = await tollway(['account', 'create', '--name', 'x', '--budget', 'year=5']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(
      /^tollway: budgets period must be one of day, week, month \(HTTP 400 \w+, request req_[0-9a-f]+\)$/,
    );
    const r2 = await tollway(['account', 'create', '--name', 'x', '--time-zone', 'Mars/Olympus']);
    expect(r2.stderr).toMatch(/time_zone must be an IANA time zone/);
  });
});
