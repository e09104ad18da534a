// Editing, topping up and rotating a token through the admin API, and the holder's own GET /v1/usage — on the store
// of the test run (SQLite, or PostgreSQL with TOLLWAY_TEST_DIALECT=postgres).
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { expectB } from '../../support/error-shapes.ts';
import { openaiClient } from '../../support/sdk.ts';

const t = useHarness();
const CHAT = 'qwx3.7-plus';

type PublicToken = {
  id: string;
  name: string;
  prefix: string;
  models: string[] | null;
  quota: number | null;
  spent: number;
  held: number;
  rpm_limit: number | null;
  concurrency_limit: number | null;
  expires_at: number | null;
  previous_secret_until: number | null;
};
type Usage = {
  object: string;
  token: { id: string; name: string };
  balance: { quota: number | null; spent: number; held: number; remaining: number | null };
  period: { since: number; until: number };
  usage: {
    data: Array<{ model: string; entries: number; amount: number }>;
    total: { entries: number; amount: number };
    credited: number;
  };
};
type AuditRow = {
  action: string;
  target: string | null;
  detail: Record<string, unknown> | null;
  request_id: string | null;
};

async function newToken(body: Record<string, unknown> = {}): Promise<{ id: string; token: string }> {
  const r = await t.h.admin('/admin/tokens', { method: 'POST', json: { name: 'changes', ...body } });
  expect(r.status).toBe(201);
  return (await r.json()) as { id: string; token: string };
}
const getToken = async (id: string) => (await (await t.h.admin(`/admin/tokens/${id}`)).json()) as PublicToken;
const usage = async (token: string, q = '') => {
  const r = await t.h.fetch(`/v1/usage${q}`, { token });
  expect(r.status).toBe(200);
  return (await r.json()) as Usage;
};
const chat = (token: string) =>
  t.h.fetch('/v1/chat/completions', {
    method: 'POST',
    token,
    json: { model: CHAT, messages: [{ role: 'user', content: 'hello there' }] },
  });
const modelIds = async (token: string) =>
  ((await (await t.h.fetch('/v1/models', { token })).json()) as { data: Array<{ id: string }> }).data.map((m) => m.id);
async function auditFor(id: string): Promise<AuditRow[]> {
  const rows = ((await (await t.h.admin('/admin/audit?limit=1000')).json()) as { data: AuditRow[] }).data;
  return rows.filter((r) => r.target === id);
}

describe('PATCH /admin/tokens/{id}', () => {
  it('changes name, models, quota, limits and expiry; each applies on the next request (no 5 s cache lag)', async () => {
    const tok = await newToken();
    expect(await modelIds(tok.token)).toContain('qwx-image-2.0'); // cached now as "every model"
    const exp = Date.now() + 3_600_000;
    const r = await t.h.admin(`/admin/tokens/${tok.id}`, {
      method: 'PATCH',
      json: {
        name: 'renamed',
        models: [CHAT],
        quota: 9_000_000,
        rpm_limit: 2,
        tpm_limit: 5000,
        concurrency_limit: 3,
        expires_at: exp,
      },
    });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({
      id: tok.id,
      name: 'renamed',
      models: [CHAT],
      quota: 9_000_000,
      rpm_limit: 2,
      tpm_limit: 5000,
      concurrency_limit: 3,
      expires_at: exp,
    });
    expect(await getToken(tok.id)).toMatchObject({ name: 'renamed', models: [CHAT], quota: 9_000_000, rpm_limit: 2 });
    // At once: the allow-list and the rate limit (2 a minute: /v1/models above was before the limit existed).
    expect(await modelIds(tok.token)).toEqual([CHAT]);
    expect((await t.h.fetch('/v1/models', { token: tok.token })).status).toBe(200);
    await expectB(await t.h.fetch('/v1/models', { token: tok.token }), 429, 'rate_limit_exceeded');
    // null removes a limit; the limit is gone at once too.
    expect(
      (
        await t.h.admin(`/admin/tokens/${tok.id}`, {
          method: 'PATCH',
          json: { rpm_limit: null, models: null, expires_at: null },
        })
      ).status,
    ).toBe(200);
    expect(await getToken(tok.id)).toMatchObject({
      rpm_limit: null,
      models: null,
      expires_at: null,
      quota: 9_000_000,
      concurrency_limit: 3,
    });
    expect((await t.h.fetch('/v1/models', { token: tok.token })).status).toBe(200);
    const a = await auditFor(tok.id);
    const update = a.find((x) => x.action === 'token.update')!;
    expect(update.request_id).toMatch(/^req_/);
    expect(update.detail).toEqual({
      changes: {
        rpmLimit: { from: 2, to: null },
        models: { from: [CHAT], to: null },
        expiresAt: { from: exp, to: null },
      },
    });
  });

  it('an expiry set in the past is refused; a past expiry moved to the future revives the token', async () => {
    const tok = await newToken({ expires_at: Date.now() + 300 });
    await new Promise((r) => setTimeout(r, 350));
    await expectB(await t.h.fetch('/v1/models', { token: tok.token }), 401, 'token_expired');
    const past = await expectB(
      await t.h.admin(`/admin/tokens/${tok.id}`, { method: 'PATCH', json: { expires_at: Date.now() - 1 } }),
      400,
      'invalid_parameter',
    );
    expect(past.error.param).toBe('expires_at');
    expect(
      (await t.h.admin(`/admin/tokens/${tok.id}`, { method: 'PATCH', json: { expires_at: Date.now() + 60_000 } }))
        .status,
    ).toBe(200);
    expect((await t.h.fetch('/v1/models', { token: tok.token })).status).toBe(200);
  });

  it('unknown fields, bad values, an empty edit, an unknown or revoked token: refused in the family B shape, nothing changed', async () => {
    const tok = await newToken({ quota: 1000 });
    const unknown = await expectB(
      await t.h.admin(`/admin/tokens/${tok.id}`, { method: 'PATCH', json: { quota: 5, spent: 0 } }),
      400,
      'invalid_parameter',
    );
    expect(unknown.error.param).toBe('spent');
    expect(unknown.error.message).toContain('Unknown field: spent');
    for (const [json, param] of [
      [{ quota: -1 }, 'quota'],
      [{ quota: 1.5 }, 'quota'],
      [{ rpm_limit: 0 }, 'rpm_limit'],
      [{ tpm_limit: 0 }, 'tpm_limit'],
      [{ concurrency_limit: '3' }, 'concurrency_limit'],
      [{ name: '' }, 'name'],
      [{ models: ['no-such-model'] }, 'models'],
      [{ models: 'qwx3.7-plus' }, 'models'],
    ] as const) {
      const e = await expectB(
        await t.h.admin(`/admin/tokens/${tok.id}`, { method: 'PATCH', json }),
        400,
        'invalid_parameter',
      );
      expect(e.error.param).toBe(param);
    }
    await expectB(await t.h.admin(`/admin/tokens/${tok.id}`, { method: 'PATCH', json: {} }), 400, 'invalid_request');
    await expectB(await t.h.admin(`/admin/tokens/${tok.id}`, { method: 'PATCH', json: [1] }), 400, 'invalid_request');
    await expectB(await t.h.admin('/admin/tokens/tok_nope', { method: 'PATCH', json: { quota: 5 } }), 404, 'not_found');
    expect(await getToken(tok.id)).toMatchObject({ quota: 1000, name: 'changes' });
    expect((await auditFor(tok.id)).filter((a) => a.action === 'token.update')).toEqual([]);
    expect((await t.h.admin(`/admin/tokens/${tok.id}`, { method: 'DELETE' })).status).toBe(200);
    await expectB(await t.h.admin(`/admin/tokens/${tok.id}`, { method: 'PATCH', json: { quota: 5 } }), 409, 'conflict');
  });
});

describe('POST /admin/tokens/{id}/topup', () => {
  it('raises the remaining quota by exactly the amount, writes one credit line, shows in the bill apart from charges, and reconciles clean', async () => {
    const since = Date.now();
    const tok = await newToken({ quota: 2_000_000 });
    expect((await chat(tok.token)).status).toBe(200);
    const before = await usage(tok.token);
    expect(before.balance.spent).toBeGreaterThan(0);
    expect(before.balance.remaining).toBe(2_000_000 - before.balance.spent);

    const r = await t.h.admin(`/admin/tokens/${tok.id}/topup`, { method: 'POST', json: { amount: 3_000_001 } });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({
      id: tok.id,
      quota: 5_000_001,
      topup: { amount: 3_000_001, credited: true },
    });
    const after = await usage(tok.token);
    expect(after.balance.remaining! - before.balance.remaining!).toBe(3_000_001);
    expect(after.balance.spent).toBe(before.balance.spent);
    expect(after.usage.credited).toBe(3_000_001);
    expect(after.usage.total).toEqual(before.usage.total);

    const ledger = (
      (await (await t.h.admin(`/admin/ledger?token_id=${tok.id}`)).json()) as {
        data: Array<{ kind: string; amount: number; model: string }>;
      }
    ).data;
    expect(ledger.filter((l) => l.kind === 'credit')).toEqual([
      expect.objectContaining({ kind: 'credit', amount: 3_000_001, model: '-' }),
    ]);
    const charges = ledger.filter((l) => l.kind !== 'credit').reduce((s, l) => s + l.amount, 0);

    const bill = (await (await t.h.admin(`/admin/bills?token_id=${tok.id}&period=day`)).json()) as {
      data: Array<{
        amount: number;
        entries: number;
        credits: { entries: number; amount: number };
        models: Record<string, unknown>;
      }>;
      total: { amount: number; credit: number };
    };
    expect(bill.data).toHaveLength(1);
    expect(bill.data[0]).toMatchObject({ amount: charges, entries: 1, credits: { entries: 1, amount: 3_000_001 } });
    expect(Object.keys(bill.data[0]!.models)).toEqual([CHAT]);
    expect(bill.total).toMatchObject({ amount: charges, credit: 3_000_001 });
    const csv = await (await t.h.admin(`/admin/bills?token_id=${tok.id}&period=day&format=csv`)).text();
    const [header, row] = csv.split('\r\n');
    const cols = Object.fromEntries(header!.split(',').map((h, i) => [h, row!.split(',')[i]]));
    expect(cols).toMatchObject({ entries: '1', amount_micro: String(charges), credit_micro: '3000001' });

    const rec = (await (await t.h.admin(`/admin/reconcile?from=${since}&to=${Date.now() + 1}`)).json()) as {
      difference: number;
      mismatches: unknown[];
    };
    expect(rec.mismatches).toEqual([]);
    expect(rec.difference).toBe(0);
    const a = (await auditFor(tok.id)).find((x) => x.action === 'token.topup')!;
    expect(a.detail).toMatchObject({ amount: 3_000_001, quota_after: 5_000_001 });
  });

  it('an exhausted token works again right after a top-up', async () => {
    const tok = await newToken({ quota: 1 });
    await expectB(await chat(tok.token), 429, 'insufficient_quota');
    expect(
      (await t.h.admin(`/admin/tokens/${tok.id}/topup`, { method: 'POST', json: { amount: 5_000_000 } })).status,
    ).toBe(200);
    expect((await chat(tok.token)).status).toBe(200);
  });

  it('an idempotency key credits once; reused for another amount it is refused', async () => {
    const tok = await newToken({ quota: 0 });
    const once = () =>
      t.h.admin(`/admin/tokens/${tok.id}/topup`, {
        method: 'POST',
        json: { amount: 700, idempotency_key: 'invoice-42' },
      });
    expect(await (await once()).json()).toMatchObject({ quota: 700, topup: { credited: true } });
    expect(await (await once()).json()).toMatchObject({ quota: 700, topup: { credited: false } });
    await expectB(
      await t.h.admin(`/admin/tokens/${tok.id}/topup`, {
        method: 'POST',
        json: { amount: 701, idempotency_key: 'invoice-42' },
      }),
      409,
      'conflict',
    );
    expect((await getToken(tok.id)).quota).toBe(700);
    expect((await auditFor(tok.id)).filter((a) => a.action === 'token.topup')).toHaveLength(1);
  });

  it('parallel top-ups and charges: every credit counted exactly once', async () => {
    const tok = await newToken({ quota: 50_000_000 });
    const results = await Promise.all([
      ...Array.from({ length: 12 }, (_, i) =>
        t.h.admin(`/admin/tokens/${tok.id}/topup`, { method: 'POST', json: { amount: 1_000 + i } }),
      ),
      ...Array.from({ length: 4 }, () => chat(tok.token)),
    ]);
    expect(results.map((r) => r.status)).toEqual(Array(16).fill(200));
    const credits = 12 * 1_000 + (11 * 12) / 2;
    const token = await getToken(tok.id);
    expect(token.quota).toBe(50_000_000 + credits);
    const u = await usage(tok.token);
    expect(u.usage.credited).toBe(credits);
    expect(u.usage.total.entries).toBe(4);
    expect(u.balance.remaining).toBe(50_000_000 + credits - u.balance.spent);
  });

  it('bad amounts, unknown fields, an unlimited or unknown token are refused', async () => {
    const tok = await newToken({ quota: 10 });
    for (const json of [
      {},
      { amount: 0 },
      { amount: -5 },
      { amount: 1.5 },
      { amount: '5' },
      { amount: Number.MAX_SAFE_INTEGER },
    ]) {
      expect((await t.h.admin(`/admin/tokens/${tok.id}/topup`, { method: 'POST', json })).status).toBe(400);
    }
    expect(
      (
        await expectB(
          await t.h.admin(`/admin/tokens/${tok.id}/topup`, { method: 'POST', json: { amount: 5, note: 'x' } }),
          400,
          'invalid_parameter',
        )
      ).error.param,
    ).toBe('note');
    const unlimited = await newToken();
    const refused = await expectB(
      await t.h.admin(`/admin/tokens/${unlimited.id}/topup`, { method: 'POST', json: { amount: 5 } }),
      409,
      'conflict',
    );
    // Both ways of setting a quota are named (the CLI shows the same message).
    expect(refused.error.message).toContain(`PATCH /admin/tokens/${unlimited.id}`);
    expect(refused.error.message).toContain(`tollway token update ${unlimited.id} --quota`);
    await expectB(
      await t.h.admin('/admin/tokens/tok_nope/topup', { method: 'POST', json: { amount: 5 } }),
      404,
      'not_found',
    );
    expect((await getToken(tok.id)).quota).toBe(10);
  });
});

describe('POST /admin/tokens/{id}/rotate', () => {
  it('a new secret for the same token (id, quota, usage); without grace the old secret is refused at once', async () => {
    const tok = await newToken({ quota: 50_000_000 });
    expect((await chat(tok.token)).status).toBe(200);
    const spent = (await getToken(tok.id)).spent;
    const r = await t.h.admin(`/admin/tokens/${tok.id}/rotate`, { method: 'POST' });
    expect(r.status).toBe(200);
    const rotated = (await r.json()) as PublicToken & { token: string };
    expect(rotated).toMatchObject({ id: tok.id, quota: 50_000_000, spent, previous_secret_until: null });
    expect(rotated.token).toMatch(/^tw-/);
    expect(rotated.token).not.toBe(tok.token);
    expect(rotated.prefix).toBe(rotated.token.slice(0, 7));
    // The secret is shown once: never in a read.
    expect(JSON.stringify(await getToken(tok.id))).not.toContain(rotated.token);
    expect(JSON.stringify(await (await t.h.admin('/admin/tokens')).json())).not.toContain(rotated.token);
    await expectB(await t.h.fetch('/v1/models', { token: tok.token }), 401, 'invalid_token');
    // The new secret through the official SDK: same identity, usage continues on the same token.
    const client = openaiClient(t.h, rotated.token);
    const done = await client.chat.completions.create({
      model: CHAT,
      messages: [{ role: 'user', content: 'after rotation' }],
    });
    expect(done.choices[0]!.message.content).toBeTruthy();
    const mine = (await client.get('/usage')) as Usage;
    expect(mine.token.id).toBe(tok.id);
    expect(mine.usage.total.entries).toBe(2);
    expect(mine.balance.spent).toBeGreaterThan(spent);
    const a = (await auditFor(tok.id)).find((x) => x.action === 'token.rotate')!;
    expect(a.detail).toEqual({ grace_ms: 0, previous_secret_until: null });
  });

  it('with a grace period the old secret works until it ends, then is refused; the new one works throughout', async () => {
    const tok = await newToken();
    expect((await t.h.fetch('/v1/models', { token: tok.token })).status).toBe(200); // cached
    const r = await t.h.admin(`/admin/tokens/${tok.id}/rotate`, { method: 'POST', json: { grace_ms: 600 } });
    const rotated = (await r.json()) as PublicToken & { token: string };
    expect(rotated.previous_secret_until).toBeGreaterThan(Date.now());
    const oldClient = openaiClient(t.h, tok.token);
    expect((await oldClient.models.list()).data.length).toBeGreaterThan(0);
    expect((await t.h.fetch('/v1/models', { token: rotated.token })).status).toBe(200);
    await new Promise((res) => setTimeout(res, Math.max(0, rotated.previous_secret_until! - Date.now()) + 20));
    const e = await oldClient.models.list().catch((x: unknown) => x);
    expect(e).toMatchObject({ status: 401, code: 'invalid_token' });
    expect((await t.h.fetch('/v1/models', { token: rotated.token })).status).toBe(200);
    // Rotating again drops the previous secret at once (one previous secret at most).
    const again = (await (
      await t.h.admin(`/admin/tokens/${tok.id}/rotate`, { method: 'POST', json: { grace_ms: 60_000 } })
    ).json()) as { token: string };
    expect((await t.h.fetch('/v1/models', { token: rotated.token })).status).toBe(200);
    expect((await t.h.fetch('/v1/models', { token: again.token })).status).toBe(200);
    await expectB(await t.h.fetch('/v1/models', { token: tok.token }), 401, 'invalid_token');
  });

  it('revoking a token in its grace period refuses the previous secret at once too', async () => {
    const tok = await newToken();
    const rotated = (await (
      await t.h.admin(`/admin/tokens/${tok.id}/rotate`, { method: 'POST', json: { grace_ms: 60_000 } })
    ).json()) as { token: string };
    expect((await t.h.fetch('/v1/models', { token: tok.token })).status).toBe(200); // cached under the previous secret
    expect((await t.h.admin(`/admin/tokens/${tok.id}`, { method: 'DELETE' })).status).toBe(200);
    await expectB(await t.h.fetch('/v1/models', { token: tok.token }), 401, 'token_revoked');
    await expectB(await t.h.fetch('/v1/models', { token: rotated.token }), 401, 'token_revoked');
  });

  it('a revoked or unknown token is not rotated; a bad grace is refused', async () => {
    const tok = await newToken();
    await expectB(
      await t.h.admin(`/admin/tokens/${tok.id}/rotate`, { method: 'POST', json: { grace_ms: -1 } }),
      400,
      'invalid_parameter',
    );
    await expectB(
      await t.h.admin(`/admin/tokens/${tok.id}/rotate`, { method: 'POST', json: { grace_ms: 8 * 86_400_000 } }),
      400,
      'invalid_parameter',
    );
    await expectB(
      await t.h.admin(`/admin/tokens/${tok.id}/rotate`, { method: 'POST', json: { grace: 5 } }),
      400,
      'invalid_parameter',
    );
    await expectB(await t.h.admin('/admin/tokens/tok_nope/rotate', { method: 'POST' }), 404, 'not_found');
    expect((await t.h.admin(`/admin/tokens/${tok.id}`, { method: 'DELETE' })).status).toBe(200);
    await expectB(await t.h.admin(`/admin/tokens/${tok.id}/rotate`, { method: 'POST' }), 409, 'conflict');
    await expectB(await t.h.fetch('/v1/models', { token: tok.token }), 401, 'token_revoked');
  });
});

describe('GET /v1/usage', () => {
  it('the balance and usage by model of the calling token only, for a period', async () => {
    const a = await newToken({ quota: 40_000_000 });
    const b = await newToken();
    expect((await chat(a.token)).status).toBe(200);
    expect((await chat(a.token)).status).toBe(200);
    expect((await chat(b.token)).status).toBe(200);
    const u = await usage(a.token);
    expect(u.object).toBe('token_usage');
    expect(u.token.id).toBe(a.id);
    const ledger = (
      (await (await t.h.admin(`/admin/ledger?token_id=${a.id}`)).json()) as { data: Array<{ amount: number }> }
    ).data;
    const charged = ledger.reduce((s, l) => s + l.amount, 0);
    expect(u.usage.data).toEqual([
      { model: CHAT, entries: 2, requests: 2, amount: charged, amount_units: expect.any(String) },
    ]);
    expect(u.usage.total).toMatchObject({ entries: 2, amount: charged });
    expect(u.balance).toMatchObject({ quota: 40_000_000, spent: charged, held: 0, remaining: 40_000_000 - charged });
    const ub = await usage(b.token);
    expect(ub.balance).toMatchObject({ quota: null, remaining: null });
    expect(ub.usage.total.entries).toBe(1);
    // A period before any call: nothing used in it (the balance stays the token's).
    const old = await usage(a.token, '?since=2020-01-01&until=2020-02-01');
    expect(old.usage.total).toMatchObject({ entries: 0, amount: 0 });
    expect(old.balance.spent).toBe(charged);
    expect(old.period).toEqual({ since: Date.UTC(2020, 0, 1), until: Date.UTC(2020, 1, 1) });
  });

  it('refuses unknown parameters, a reversed or too long period, and a missing token', async () => {
    const tok = await newToken();
    expect(
      (await expectB(await t.h.fetch('/v1/usage?token_id=tok_other', { token: tok.token }), 400, 'invalid_parameter'))
        .error.param,
    ).toBe('token_id');
    await expectB(
      await t.h.fetch('/v1/usage?since=2026-02-01&until=2026-01-01', { token: tok.token }),
      400,
      'invalid_parameter',
    );
    await expectB(
      await t.h.fetch('/v1/usage?since=2020-01-01&until=2026-01-01', { token: tok.token }),
      400,
      'invalid_parameter',
    );
    await expectB(await t.h.fetch('/v1/usage'), 401, 'missing_token');
    expect((await t.h.fetch('/v1/usage', { method: 'POST', token: tok.token, json: {} })).status).toBe(405);
  });
});
