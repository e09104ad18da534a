// Every credit endpoint refuses malformed input with a clear 4xx in the family B shape, and changes nothing: no batch,
// no code, no redemption, no ledger line, no audit line.
import { describe, expect, it } from 'vitest';
import type { BErr } from '../support/error-shapes.ts';
import { useHarness } from '../support/harness.ts';

const t = useHarness();
const HOUR = 3_600_000;

/** Rows of the tables a credit endpoint could write. */
async function snapshot() {
  const db = t.h.store.db;
  const count = async (table: 'credit_batches' | 'credit_codes' | 'ledger' | 'audit_log' | 'payment_events') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const redeemed = await db.selectFrom('credit_codes').select('id').where('redeemed_at', 'is not', null).execute();
  const quotas = await db.selectFrom('tokens').select(['id', 'quota']).orderBy('id').execute();
  return {
    batches: await count('credit_batches'),
    codes: await count('credit_codes'),
    ledger: await count('ledger'),
    audit: await count('audit_log'),
    payments: await count('payment_events'),
    redeemed: redeemed.length,
    quotas: quotas.map((q) => [q.id, Number(q.quota)]),
    revoked: (await db.selectFrom('credit_batches').select('id').where('revoked_at', 'is not', null).execute()).length,
  };
}

async function expectRefused(r: Response, status: number, code?: string) {
  expect(r.status).toBe(status);
  const body = (await r.json()) as BErr;
  expect(body.error.message.length).toBeGreaterThan(0);
  if (code) expect(body.error.code).toBe(code);
}

describe('credit endpoints: bad input', { timeout: 120_000 }, () => {
  it('POST /admin/credit/batches', async () => {
    const before = await snapshot();
    const post = (body: string) =>
      t.h.fetch('/admin/credit/batches', {
        method: 'POST',
        token: t.h.adminKey,
        headers: { 'content-type': 'application/json' },
        body,
      });
    const good = { count: 2, amount: 1000, expires_at: Date.now() + HOUR };
    const bad: Array<[unknown, string]> = [
      [[], 'invalid_request'],
      ['x', 'invalid_request'],
      [{ amount: 1000, expires_at: good.expires_at }, 'missing_parameter'],
      [{ ...good, count: 0 }, 'invalid_parameter'],
      [{ ...good, count: 1001 }, 'invalid_parameter'],
      [{ ...good, count: 1.5 }, 'invalid_parameter'],
      [{ ...good, amount: 0 }, 'invalid_parameter'],
      [{ ...good, amount: '5' }, 'invalid_parameter'],
      [{ count: 1, amount: 1 }, 'missing_parameter'],
      [{ ...good, expires_at: Date.now() - 1 }, 'invalid_parameter'],
      [{ ...good, name: 'x'.repeat(201) }, 'invalid_parameter'],
      [{ ...good, name: 7 }, 'invalid_parameter'],
      [{ ...good, codes: ['mine'] }, 'invalid_parameter'],
    ];
    for (const [body, code] of bad) await expectRefused(await post(JSON.stringify(body)), 400, code);
    await expectRefused(await post('{"count":'), 400, 'invalid_json');
    await expectRefused(await post(''), 400);
    expect(await snapshot()).toEqual(before);
  });

  it('GET and DELETE /admin/credit/batches/{id}, the lists', async () => {
    const before = await snapshot();
    await expectRefused(await t.h.admin('/admin/credit/batches/cb_nope'), 404, 'not_found');
    await expectRefused(await t.h.admin('/admin/credit/batches/cb_nope', { method: 'DELETE' }), 404, 'not_found');
    for (const path of ['/admin/credit/batches', '/admin/credit/redemptions', '/admin/credit/payments']) {
      await expectRefused(await t.h.admin(`${path}?limit=0`), 400, 'invalid_parameter');
      await expectRefused(await t.h.admin(`${path}?limit=abc`), 400, 'invalid_parameter');
      await expectRefused(await t.h.admin(`${path}?cursor=garbage`), 400);
      await expectRefused(await t.h.admin(`${path}?colour=red`), 400);
      // A client token is no admin credential.
      await expectRefused(await t.h.fetch(path, { token: t.token }), 403, 'permission_denied');
    }
    expect(await snapshot()).toEqual(before);
  });

  it('POST /v1/credit/redeem', async () => {
    const batch = (await (
      await t.h.admin('/admin/credit/batches', {
        method: 'POST',
        json: { count: 1, amount: 1000, expires_at: Date.now() + HOUR },
      })
    ).json()) as { codes: string[] };
    const tk = await t.h.token({ quota: 0 });
    const before = await snapshot();
    const post = (body: string, token: string | undefined = tk.secret) =>
      t.h.fetch('/v1/credit/redeem', {
        method: 'POST',
        ...(token ? { token } : {}),
        headers: { 'content-type': 'application/json' },
        body,
      });
    const bad: Array<[unknown, string]> = [
      [{}, 'missing_parameter'],
      [{ code: '' }, 'missing_parameter'],
      [{ code: '   ' }, 'missing_parameter'],
      [{ code: 12 }, 'invalid_parameter'],
      [{ code: 'x'.repeat(101) }, 'invalid_parameter'],
      [{ code: batch.codes[0], holder: 'acc_other' }, 'invalid_parameter'],
      [[batch.codes[0]], 'invalid_request'],
    ];
    for (const [body, code] of bad) await expectRefused(await post(JSON.stringify(body)), 400, code);
    await expectRefused(await post('{"code":'), 400, 'invalid_json');
    await expectRefused(await post(JSON.stringify({ code: batch.codes[0] }), ''), 401, 'missing_token');
    await expectRefused(await post(JSON.stringify({ code: batch.codes[0] }), 'tw-not-a-token'), 401, 'invalid_token');
    expect(await snapshot()).toEqual(before);
    // The code is still good.
    expect((await post(JSON.stringify({ code: batch.codes[0] }))).status).toBe(200);
  });
});
