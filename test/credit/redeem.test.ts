// Redemption codes on the store of the test run (SQLite or PostgreSQL), through the gateway's HTTP API: a batch's
// codes are shown once and kept hashed; a code credits its redeemer's account (or the token itself) once, as one
// ledger credit line with an audit line naming its batch and holder, however many redeem it at once; an expired,
// revoked, used or unknown code and every malformed request credit nothing. The race is run twice: over HTTP (the
// requests arrive spread out) and in the core, 50 calls started at once so that all read the code unredeemed.
import { describe, expect, it } from 'vitest';
import { hashCode } from '../../src/core/credit/codes.ts';
import { redeemCode } from '../../src/core/credit/redeem.ts';
import type { GatewayError } from '../../src/errors/gateway-error.ts';
import type { BErr } from '../support/error-shapes.ts';
import { useHarness } from '../support/harness.ts';

const t = useHarness();
const HOUR = 3_600_000;
const UNIT = 1_000_000;

interface Batch {
  id: string;
  amount: number;
  count: number;
  redeemed: number;
  state: string;
  codes: string[];
}

async function newBatch(count: number, amount = 5 * UNIT): Promise<Batch> {
  const r = await t.h.admin('/admin/credit/batches', {
    method: 'POST',
    json: { name: 'promo', count, amount, expires_at: Date.now() + HOUR },
  });
  expect(r.status).toBe(201);
  return (await r.json()) as Batch;
}

/** A JSON answer, read as the fields a test looks at. */
const json = async <T>(r: Promise<Response>): Promise<T> => (await (await r).json()) as T;
type CodeRow = { state: string; holder_kind: string | null; holder_id: string | null; token_id: string | null };
type Detail = { redeemed: number; codes: CodeRow[] };

const redeem = (token: string, json: unknown) => t.h.fetch('/v1/credit/redeem', { method: 'POST', token, json });

/** The credit lines of one code (its ledger key names it: core/credit/redeem.ts). */
async function creditLines(codeId: string) {
  return t.h.store.db
    .selectFrom('ledger')
    .select(['token_id', 'holder_kind', 'amount'])
    .where('kind', '=', 'credit')
    .where('idempotency_key', 'like', `%:redeem:${codeId}`)
    .execute();
}

async function codeIdOf(code: string): Promise<string> {
  const r = await t.h.store.db
    .selectFrom('credit_codes')
    .select('id')
    .where('code_hash', '=', hashCode(code))
    .executeTakeFirstOrThrow();
  return r.id;
}

const quotaOf = async (table: 'tokens' | 'accounts', id: string) =>
  Number((await t.h.store.db.selectFrom(table).select('quota').where('id', '=', id).executeTakeFirstOrThrow()).quota);

describe('redemption codes', { timeout: 120_000 }, () => {
  it('shows the codes once and keeps only their hashes', async () => {
    const b = await newBatch(3);
    expect(b.codes).toHaveLength(3);
    for (const c of b.codes) expect(c).toMatch(/^twc_[A-Za-z0-9]{24}$/);
    const rows = await t.h.store.db.selectFrom('credit_codes').selectAll().where('batch_id', '=', b.id).execute();
    expect(rows.map((r) => r.code_hash).sort()).toEqual(b.codes.map(hashCode).sort());
    const detail = await json<Detail>(t.h.admin(`/admin/credit/batches/${b.id}`));
    expect(JSON.stringify(detail)).not.toContain(b.codes[0]);
    expect(detail.codes.map((c) => c.state)).toEqual(['unused', 'unused', 'unused']);
  });

  it('50 parallel redemptions of one code by 50 tokens give one credit', async () => {
    const b = await newBatch(1);
    const tokens = await Promise.all(Array.from({ length: 50 }, (_, i) => t.h.token({ name: `r${i}`, quota: 0 })));
    const answers = await Promise.all(tokens.map((tk) => redeem(tk.secret, { code: b.codes[0] })));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    const refused = (await answers.find((r) => r.status === 409)!.json()) as BErr;
    expect(refused.error.code).toBe('credit_code_used');
    const lines = await creditLines(await codeIdOf(b.codes[0]!));
    expect(lines).toHaveLength(1);
    expect(Number(lines[0]!.amount)).toBe(b.amount);
    const quotas = await Promise.all(tokens.map((tk) => quotaOf('tokens', tk.id)));
    expect(quotas.reduce((a, q) => a + q, 0)).toBe(b.amount);
    const winner = tokens[quotas.findIndex((q) => q > 0)]!;
    expect(lines[0]!.token_id).toBe(winner.id);
  });

  it('50 redemptions of one code started at once in the core (all read it unredeemed) give one credit', async () => {
    const b = await newBatch(1);
    const tokens = await Promise.all(Array.from({ length: 50 }, (_, i) => t.h.token({ name: `c${i}`, quota: 0 })));
    const deps = t.h.gw.deps;
    const results = await Promise.allSettled(
      tokens.map((tk) =>
        redeemCode(
          deps,
          { actor: 'token', token: tk.id },
          { code: b.codes[0]!, holder: { kind: 'token', id: tk.id }, tokenId: tk.id },
        ),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const codes = results.map((r) => (r.status === 'rejected' ? (r.reason as GatewayError).code : 'ok'));
    expect(codes.filter((c) => c === 'credit_code_used')).toHaveLength(49);
    expect(await creditLines(await codeIdOf(b.codes[0]!))).toHaveLength(1);
    const quotas = await Promise.all(tokens.map((tk) => quotaOf('tokens', tk.id)));
    expect(quotas.reduce((a, q) => a + q, 0)).toBe(b.amount);
  });

  it('50 parallel redemptions by one token: one credit, the same answer to each', async () => {
    const b = await newBatch(1);
    const tk = await t.h.token({ quota: 0 });
    const answers = await Promise.all(Array.from({ length: 50 }, () => redeem(tk.secret, { code: b.codes[0] })));
    expect(answers.map((r) => r.status)).toEqual(Array(50).fill(200));
    const bodies = new Set(await Promise.all(answers.map(async (r) => JSON.stringify(await r.json()))));
    expect(bodies.size).toBe(1);
    expect(JSON.parse([...bodies][0]!)).toMatchObject({ amount: b.amount, holder_kind: 'token', holder_id: tk.id });
    expect(await creditLines(await codeIdOf(b.codes[0]!))).toHaveLength(1);
    expect(await quotaOf('tokens', tk.id)).toBe(b.amount);
  });

  it("credits the token's account, audited with its batch and holder", async () => {
    const acc = await json<{ id: string }>(
      t.h.admin('/admin/accounts', { method: 'POST', json: { name: 'acme', quota: 0 } }),
    );
    const tok = await json<{ id: string; token: string }>(
      t.h.admin('/admin/tokens', { method: 'POST', json: { name: 'acme-1', account_id: acc.id } }),
    );
    const b = await newBatch(2, 7 * UNIT);
    const r = await redeem(tok.token, { code: b.codes[1] });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ holder_kind: 'account', holder_id: acc.id, amount: 7 * UNIT });
    expect(await quotaOf('accounts', acc.id)).toBe(7 * UNIT);
    const codeId = await codeIdOf(b.codes[1]!);
    expect(await creditLines(codeId)).toEqual([
      { token_id: acc.id, holder_kind: 'account', amount: expect.anything() },
    ]);
    const audit = await json<{ data: unknown[] }>(t.h.admin(`/admin/audit?action=credit.redeem&target=${codeId}`));
    expect(audit.data).toHaveLength(1);
    expect(audit.data[0]).toMatchObject({
      actor: `token:${tok.id}`,
      detail: { batch_id: b.id, holder_kind: 'account', holder_id: acc.id, token_id: tok.id },
    });
    const detail = await json<Detail>(t.h.admin(`/admin/credit/batches/${b.id}`));
    expect(detail.redeemed).toBe(1);
    expect(detail.codes.filter((c) => c.state === 'redeemed')).toMatchObject([
      { holder_kind: 'account', holder_id: acc.id, token_id: tok.id },
    ]);
    const list = await json<{ data: Array<{ code_id: string }> }>(t.h.admin('/admin/credit/redemptions'));
    expect(list.data.some((x) => x.code_id === codeId)).toBe(true);
  });

  it('refuses a used, expired, revoked or unknown code, crediting nothing', async () => {
    const tk = await t.h.token({ quota: 0 });
    const other = await t.h.token({ quota: 0 });
    const b = await newBatch(3);
    expect((await redeem(tk.secret, { code: b.codes[0] })).status).toBe(200);
    const expectRefused = async (code: string, status: number, errCode: string) => {
      const r = await redeem(other.secret, { code });
      expect(r.status).toBe(status);
      expect(((await r.json()) as BErr).error).toMatchObject({ code: errCode, param: 'code' });
    };
    await expectRefused(b.codes[0]!, 409, 'credit_code_used');
    await expectRefused('twc_000000000000000000000000', 404, 'not_found');
    await t.h.store.db
      .updateTable('credit_batches')
      .set({ expires_at: Date.now() - 1 })
      .where('id', '=', b.id)
      .execute();
    await expectRefused(b.codes[1]!, 410, 'credit_code_expired');
    const c = await newBatch(1);
    const revoked = await t.h.admin(`/admin/credit/batches/${c.id}`, { method: 'DELETE' });
    expect(await revoked.json()).toMatchObject({ state: 'revoked' });
    await expectRefused(c.codes[0]!, 410, 'credit_code_expired');
    expect(await quotaOf('tokens', other.id)).toBe(0);
    // The one that was redeemed stays redeemed by its first redeemer, who gets the same answer again.
    const again = await redeem(tk.secret, { code: b.codes[0] });
    expect(again.status).toBe(200);
    expect(await quotaOf('tokens', tk.id)).toBe(b.amount);
  });

  it('gives the code back when the holder has nothing to credit (no quota)', async () => {
    const unlimited = await t.h.token();
    const b = await newBatch(1);
    const r = await redeem(unlimited.secret, { code: b.codes[0] });
    expect(r.status).toBe(409);
    const codeId = await codeIdOf(b.codes[0]!);
    expect(await creditLines(codeId)).toHaveLength(0);
    const limited = await t.h.token({ quota: 0 });
    expect((await redeem(limited.secret, { code: b.codes[0] })).status).toBe(200);
    expect(await quotaOf('tokens', limited.id)).toBe(b.amount);
  });
});
