// Store-level metering invariants, on the dialect the harness picks (run once with
// TOLLWAY_TEST_DIALECT=postgres for PostgreSQL).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalogue } from '../../src/catalogue/catalogue.ts';
import { DEFAULT_CATALOGUE } from '../../src/catalogue/default-catalogue.ts';
import { StoreMeter } from '../../src/metering/meter.ts';
import type { TaskRef, Usage } from '../../src/metering/types.ts';
import { TokensRepo } from '../../src/store/repos/tokens.ts';
import { useStore } from '../support/store.ts';

const fresh = useStore();
let meter: StoreMeter;
const catalogue = new Catalogue(DEFAULT_CATALOGUE);
let seq = 0;

beforeAll(() => {
  meter = new StoreMeter(fresh.store.db, () => catalogue, { batchWriter: fresh.store.batchWriter, flushIntervalMs: 2 });
});
afterAll(async () => meter?.flush());

async function newToken(quota: number | null = null): Promise<string> {
  const id = `tok_m${++seq}_${Date.now().toString(36)}`;
  await new TokensRepo(fresh.store.db).create({
    id,
    name: id,
    secretHash: `h_${id}`,
    prefix: 'tw-test',
    models: null,
    quota,
    expiresAt: null,
  });
  return id;
}

async function tokenRow(id: string) {
  const t = await fresh.store.db
    .selectFrom('tokens')
    .select(['spent', 'held', 'quota'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return { spent: Number(t.spent), held: Number(t.held) };
}

async function ledgerFor(tokenId: string) {
  return fresh.store.db.selectFrom('ledger').selectAll().where('token_id', '=', tokenId).execute();
}

const chatUsage: Usage = { kind: 'tokens', inputTokens: 1000, outputTokens: 500 }; // qwx3.7-plus: 800 + 1,000 = 1,800
const videoEstimate: Usage = { kind: 'video', outputSeconds: 5, tier: '720p' }; // wnx2.7-t2v: 3,000,000
/** A tasks row for a hold's key (the reaper keeps the holds of tasks that exist). */
const taskRow = (id: string, tokenId: string) => ({
  id,
  family: 'b',
  kind: 'video',
  token_id: tokenId,
  model: 'wnx2.7-t2v',
  billing_model: 'wnx2.7-t2v',
  upstream_model: 'wan2.7-t2v',
  channel_id: 'ch_x',
  upstream_task_id: 'up_x',
  state: 'in_progress',
  upstream_status: 'RUNNING',
  progress: null,
  request: '{}',
  result: null,
  usage: null,
  error: null,
  external_task_id: null,
  callback_url: null,
  session_id: null,
  request_id: `req_${id}`,
  upstream_request_id: null,
  tier: '720p',
  hold_amount: 0,
  next_poll_at: 0,
  lease_owner: null,
  lease_until: null,
  created_at: 1,
  updated_at: 1,
  finished_at: null,
  checked_at: null,
});
const task = (tokenId: string, taskId = `video_${++seq}`): TaskRef => ({
  taskId,
  tokenId,
  model: 'wnx2.7-t2v-20260101',
  billingModel: 'wnx2.7-t2v',
  requestId: `req_${taskId}`,
});

describe('chargeSync', () => {
  it('50 parallel writes of the same request id → one ledger row, spent incremented once', async () => {
    const tokenId = await newToken();
    const input = {
      requestId: `req_same_${seq}`,
      tokenId,
      model: 'qwx3.7-plus',
      billingModel: 'qwx3.7-plus',
      usage: chatUsage,
      upstreamRequestId: 'up-1',
    };
    const results = await Promise.all(Array.from({ length: 50 }, () => meter.chargeSync(input)));
    expect(results.filter((a) => a > 0)).toEqual([1800]);
    const rows = await ledgerFor(tokenId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      idempotency_key: input.requestId,
      model: 'qwx3.7-plus',
      kind: 'tokens',
      request_id: input.requestId,
      upstream_request_id: 'up-1',
    });
    expect(Number(rows[0]!.amount)).toBe(1800);
    expect(JSON.parse(rows[0]!.quantities)).toMatchObject({ input_tokens: 1000, output_tokens: 500 });
    expect((await tokenRow(tokenId)).spent).toBe(1800);
  });

  it('different request ids are separate charges; nothing billable writes nothing', async () => {
    const tokenId = await newToken();
    await meter.chargeSync({
      requestId: `req_a_${seq}`,
      tokenId,
      model: 'qwx-image-2.0',
      billingModel: 'qwx-image-2.0',
      usage: { kind: 'images', images: 2 },
    });
    await meter.chargeSync({
      requestId: `req_b_${seq}`,
      tokenId,
      model: 'qwx-image-2.0',
      billingModel: 'qwx-image-2.0',
      usage: { kind: 'images', images: 1 },
    });
    expect(
      await meter.chargeSync({
        requestId: `req_c_${seq}`,
        tokenId,
        model: 'qwx-image-2.0',
        billingModel: 'qwx-image-2.0',
        usage: { kind: 'images', images: 0 },
      }),
    ).toBe(0);
    expect(await ledgerFor(tokenId)).toHaveLength(2);
    expect((await tokenRow(tokenId)).spent).toBe(600_000);
  });

  it('an upstream request id longer than its column is stored cut to 200 characters (PostgreSQL would refuse the row)', async () => {
    const tokenId = await newToken();
    const long = 'u'.repeat(500);
    expect(
      await meter.chargeSync({
        requestId: `req_long_${seq}`,
        tokenId,
        model: 'qwx3.7-plus',
        billingModel: 'qwx3.7-plus',
        usage: chatUsage,
        upstreamRequestId: long,
      }),
    ).toBe(1800);
    meter.chargeSyncDeferred({
      requestId: `req_long_deferred_${seq}`,
      tokenId,
      model: 'qwx3.7-plus',
      billingModel: 'qwx3.7-plus',
      usage: chatUsage,
      upstreamRequestId: long,
    });
    await meter.flush();
    const rows = await ledgerFor(tokenId);
    expect(rows).toHaveLength(2);
    for (const r of rows) expect(r.upstream_request_id).toBe(long.slice(0, 200));
  });

  it('prices a snapshot public name passed as billing model like its base', async () => {
    expect(meter.price('wnx2.7-i2v-20260101', { kind: 'video', outputSeconds: 2, tier: '1080p' }).amount).toBe(
      2_000_000,
    );
  });
});

describe('chargeSyncDeferred (group commit)', () => {
  it('returns the amount at once; 50 parallel deferred charges of one request id write one row after flush', async () => {
    const tokenId = await newToken();
    const input = {
      requestId: `req_def_${seq}`,
      tokenId,
      model: 'qwx3.7-plus',
      billingModel: 'qwx3.7-plus',
      usage: chatUsage,
    };
    const amounts = Array.from({ length: 50 }, () => meter.chargeSyncDeferred(input));
    expect(amounts.filter((a) => a > 0)).toEqual([1800]);
    await meter.flush();
    expect(await ledgerFor(tokenId)).toHaveLength(1);
    expect((await tokenRow(tokenId)).spent).toBe(1800);
  });

  it('a deferred row whose key was already charged synchronously is not charged again', async () => {
    const tokenId = await newToken();
    const input = {
      requestId: `req_mix_${seq}`,
      tokenId,
      model: 'qwx3.7-plus',
      billingModel: 'qwx3.7-plus',
      usage: chatUsage,
    };
    await meter.chargeSync(input);
    meter.chargeSyncDeferred(input);
    await meter.flush();
    expect(await ledgerFor(tokenId)).toHaveLength(1);
    expect((await tokenRow(tokenId)).spent).toBe(1800);
  });

  it('many distinct deferred charges across tokens land in batches with exact totals', async () => {
    const a = await newToken();
    const b = await newToken();
    for (let i = 0; i < 450; i++) {
      meter.chargeSyncDeferred({
        requestId: `req_batch_${seq}_${i}`,
        tokenId: i % 3 === 0 ? a : b,
        model: 'text-embedding-v4',
        billingModel: 'text-embedding-v4',
        usage: { kind: 'tokens', inputTokens: 2000, outputTokens: 0 },
      });
    }
    await meter.flush();
    expect(await ledgerFor(a)).toHaveLength(150);
    expect(await ledgerFor(b)).toHaveLength(300);
    expect((await tokenRow(a)).spent).toBe(150 * 1000);
    expect((await tokenRow(b)).spent).toBe(300 * 1000);
  });

  it('queued (not yet committed) charges count against the quota', async () => {
    const tokenId = await newToken(1800);
    const slow = new StoreMeter(fresh.store.db, () => catalogue, {
      batchWriter: fresh.store.batchWriter,
      flushIntervalMs: 60_000,
    });
    slow.chargeSyncDeferred({
      requestId: `req_q_${seq}`,
      tokenId,
      model: 'qwx3.7-plus',
      billingModel: 'qwx3.7-plus',
      usage: chatUsage,
    });
    expect((await tokenRow(tokenId)).spent).toBe(0);
    await expect(slow.reserve(`req_qr_${seq}`, tokenId, 1)).rejects.toMatchObject({
      code: 'insufficient_quota',
      status: 429,
    });
    await slow.flush();
    expect((await tokenRow(tokenId)).spent).toBe(1800);
    await expect(slow.reserve(`req_qs_${seq}`, tokenId, 1)).rejects.toMatchObject({ code: 'insufficient_quota' });
    expect((await tokenRow(tokenId)).held).toBe(0);
  });
});

describe('reservations of calls answered at once', () => {
  const charge = (requestId: string, tokenId: string, usage: Usage = chatUsage) => ({
    requestId,
    tokenId,
    model: 'qwx3.7-plus',
    billingModel: 'qwx3.7-plus',
    usage,
  });

  it('a reservation must fit spent + held + itself; settling charges once and frees the reservation', async () => {
    const tokenId = await newToken(3600);
    const k1 = `req_r1_${seq}`;
    await meter.reserve(k1, tokenId, 2000);
    expect(await tokenRow(tokenId)).toEqual({ spent: 0, held: 2000 });
    await expect(meter.reserve(`req_r2_${seq}`, tokenId, 1601)).rejects.toMatchObject({ code: 'insufficient_quota' });
    expect(await meter.settleReserved(charge(k1, tokenId))).toBe(1800);
    expect(await meter.settleReserved(charge(k1, tokenId))).toBe(0);
    expect(await tokenRow(tokenId)).toEqual({ spent: 1800, held: 0 });
    await meter.reserve(`req_r3_${seq}`, tokenId, 1800);
    await expect(meter.reserve(`req_r4_${seq}`, tokenId, 1)).rejects.toMatchObject({ code: 'insufficient_quota' });
    expect(await ledgerFor(tokenId)).toHaveLength(1);
  });

  it('held task amounts count; a released reservation charges nothing and frees its amount once', async () => {
    const tokenId = await newToken(3_000_000);
    await meter.hold(task(tokenId), videoEstimate);
    await expect(meter.reserve(`req_rh_${seq}`, tokenId, 1)).rejects.toMatchObject({ code: 'insufficient_quota' });
    const t2 = await newToken(10_000);
    const k = `req_rr_${seq}`;
    await meter.reserve(k, t2, 5000);
    await meter.releaseReserved(k);
    await meter.releaseReserved(k);
    expect(await tokenRow(t2)).toEqual({ spent: 0, held: 0 });
    expect(await ledgerFor(t2)).toHaveLength(0);
  });

  it('a call that outlived its reservation (released by the reaper) and then delivered is still charged, once', async () => {
    const tokenId = await newToken(10_000);
    const k = `req_reaped_${seq}`;
    await meter.reserve(k, tokenId, 5000);
    await fresh.store.db
      .updateTable('holds')
      .set({ created_at: Date.now() - 60_000 })
      .where('hold_key', '=', k)
      .execute();
    expect(await meter.reapReservations(30_000)).toBeGreaterThanOrEqual(1);
    expect(await tokenRow(tokenId)).toEqual({ spent: 0, held: 0 });
    expect(await meter.settleReserved(charge(k, tokenId))).toBe(1800);
    expect(await meter.settleReserved(charge(k, tokenId))).toBe(0);
    expect(await tokenRow(tokenId)).toEqual({ spent: 1800, held: 0 });
    expect(await ledgerFor(tokenId)).toHaveLength(1);
  });

  it('50 parallel reservations against a quota that fits 5 → exactly 5 land', async () => {
    const tokenId = await newToken(5 * 1000 + 999);
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => meter.reserve(`req_rp_${seq}_${i}`, tokenId, 1000)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
    expect((await tokenRow(tokenId)).held).toBe(5000);
  });

  it('the reaper releases reservations left open by a dead instance, and only old ones', async () => {
    const tokenId = await newToken(10_000);
    await meter.reserve(`req_old_${seq}`, tokenId, 3000);
    await fresh.store.db
      .updateTable('holds')
      .set({ created_at: Date.now() - 60_000 })
      .where('hold_key', '=', `req_old_${seq}`)
      .execute();
    await meter.reserve(`req_new_${seq}`, tokenId, 2000);
    await meter.hold(task(tokenId), { kind: 'video', outputSeconds: 0.001, tier: '720p' });
    const heldBefore = (await tokenRow(tokenId)).held;
    expect(await meter.reapReservations(30_000)).toBeGreaterThanOrEqual(1);
    expect((await tokenRow(tokenId)).held).toBe(heldBefore - 3000);
    const states = await fresh.store.db
      .selectFrom('holds')
      .select(['hold_key', 'state'])
      .where('token_id', '=', tokenId)
      .execute();
    expect(
      Object.fromEntries(
        states.map((h) => [
          h.hold_key.startsWith('req_old') ? 'old' : h.hold_key.startsWith('req_new') ? 'new' : 'task',
          h.state,
        ]),
      ),
    ).toEqual({ old: 'released', new: 'held', task: 'held' });
  });

  it("the reaper gives back a task's hold whose task row is gone (its release failed after a refused creation); a task's hold is kept", async () => {
    const tokenId = await newToken(null);
    const gone = task(tokenId);
    await meter.hold(gone, { kind: 'video', outputSeconds: 1, tier: '720p' });
    const live = { ...task(tokenId), taskId: `task_live_${seq}` };
    await meter.hold(live, { kind: 'video', outputSeconds: 1, tier: '720p' });
    await fresh.store.db.insertInto('tasks').values(taskRow(live.taskId, tokenId)).execute();
    await fresh.store.db
      .updateTable('holds')
      .set({ created_at: Date.now() - 60_000 })
      .where('token_id', '=', tokenId)
      .execute();
    const heldBefore = (await tokenRow(tokenId)).held;
    const goneAmount = Number(
      (
        await fresh.store.db
          .selectFrom('holds')
          .select('amount')
          .where('hold_key', '=', gone.taskId)
          .executeTakeFirstOrThrow()
      ).amount,
    );
    expect(goneAmount).toBeGreaterThan(0);
    expect(await meter.reapReservations(30_000)).toBeGreaterThanOrEqual(1);
    expect((await tokenRow(tokenId)).held).toBe(heldBefore - goneAmount);
    const states = await fresh.store.db
      .selectFrom('holds')
      .select(['hold_key', 'state'])
      .where('token_id', '=', tokenId)
      .execute();
    expect(Object.fromEntries(states.map((h) => [h.hold_key === gone.taskId ? 'gone' : 'live', h.state]))).toEqual({
      gone: 'released',
      live: 'held',
    });
  });

  it('tokens without a quota are never refused', async () => {
    const tokenId = await newToken(null);
    await meter.reserve(`req_nq_${seq}`, tokenId, 10 ** 12);
  });
});

describe('holds', () => {
  it('20 parallel holds against a quota that fits 3 → exactly 3 succeed', async () => {
    const tokenId = await newToken(3 * 3_000_000 + 2_999_999);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => meter.hold(task(tokenId), videoEstimate)),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(ok).toHaveLength(3);
    expect(refused).toHaveLength(17);
    for (const r of refused) expect(r.reason).toMatchObject({ code: 'insufficient_quota' });
    expect(await tokenRow(tokenId)).toEqual({ spent: 0, held: 9_000_000 });
    const holds = await fresh.store.db.selectFrom('holds').selectAll().where('token_id', '=', tokenId).execute();
    expect(holds).toHaveLength(3);
  });

  it('a repeated hold for the same task is a no-op', async () => {
    const tokenId = await newToken(null);
    const t = task(tokenId);
    expect(await meter.hold(t, videoEstimate)).toBe(3_000_000);
    expect(await meter.hold(t, videoEstimate)).toBe(3_000_000);
    expect((await tokenRow(tokenId)).held).toBe(3_000_000);
  });

  it('release of a failed task returns held to 0 and charges nothing; repeated releases are no-ops', async () => {
    const tokenId = await newToken(10_000_000);
    const t = task(tokenId);
    await meter.hold(t, videoEstimate);
    expect((await tokenRow(tokenId)).held).toBe(3_000_000);
    await meter.release(t);
    await meter.release(t);
    expect(await tokenRow(tokenId)).toEqual({ spent: 0, held: 0 });
    expect(await ledgerFor(tokenId)).toHaveLength(0);
    // A settle after the release cannot charge: the outcome was decided.
    expect(await meter.settle(t, { kind: 'video', outputSeconds: 5, tier: '720p' })).toBe(0);
    expect(await ledgerFor(tokenId)).toHaveLength(0);
  });

  it('50 parallel settles of the same task → one charge by the reported usage, hold closed', async () => {
    const tokenId = await newToken(10_000_000);
    const t = task(tokenId);
    await meter.hold(t, videoEstimate);
    const reported: Usage = { kind: 'video', outputSeconds: 4, tier: '720p' };
    const amounts = await Promise.all(Array.from({ length: 50 }, () => meter.settle(t, reported)));
    expect(amounts.filter((a) => a > 0)).toEqual([2_400_000]);
    const rows = await ledgerFor(tokenId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      idempotency_key: `${t.taskId}:success`,
      task_id: t.taskId,
      model: 'wnx2.7-t2v-20260101',
      kind: 'video',
    });
    expect(await tokenRow(tokenId)).toEqual({ spent: 2_400_000, held: 0 });
    const hold = await fresh.store.db
      .selectFrom('holds')
      .selectAll()
      .where('hold_key', '=', t.taskId)
      .executeTakeFirstOrThrow();
    expect(hold.state).toBe('settled');
  });

  it('settle racing release → exactly one outcome (repeated over many tasks)', async () => {
    const tokenId = await newToken(null);
    const reported: Usage = { kind: 'video', outputSeconds: 5, tier: '720p' };
    let settled = 0;
    let released = 0;
    for (let i = 0; i < 15; i++) {
      const t = task(tokenId);
      await meter.hold(t, videoEstimate);
      const ops = Array.from({ length: 6 }, (_, k) =>
        k % 2 === 0 ? meter.settle(t, reported) : meter.release(t).then(() => -1),
      );
      await Promise.all(ops);
      const hold = await fresh.store.db
        .selectFrom('holds')
        .select('state')
        .where('hold_key', '=', t.taskId)
        .executeTakeFirstOrThrow();
      const charges = await fresh.store.db
        .selectFrom('ledger')
        .select('amount')
        .where('task_id', '=', t.taskId)
        .execute();
      if (hold.state === 'settled') {
        settled++;
        expect(charges).toHaveLength(1);
      } else {
        released++;
        expect(hold.state).toBe('released');
        expect(charges).toHaveLength(0);
      }
    }
    expect(settled + released).toBe(15);
    const row = await tokenRow(tokenId);
    expect(row.held).toBe(0);
    expect(row.spent).toBe(settled * 3_000_000);
  });

  it('a task without a hold: parallel settles charge once; a release first means no charge', async () => {
    const tokenId = await newToken(null);
    const t: TaskRef = { taskId: `vidx_task_${++seq}`, tokenId, model: 'vidx-v2-6', billingModel: 'vidx-v2-6' };
    const amounts = await Promise.all(
      Array.from({ length: 20 }, () => meter.settle(t, { kind: 'video-mode', outputSeconds: 5, tier: 'pro' })),
    );
    expect(amounts.filter((a) => a > 0)).toEqual([2_500_000]);
    expect((await tokenRow(tokenId)).spent).toBe(2_500_000);

    const t2: TaskRef = { ...t, taskId: `vidx_task_${++seq}` };
    await meter.release(t2);
    expect(await meter.settle(t2, { kind: 'video-mode', outputSeconds: 5, tier: 'pro' })).toBe(0);
    expect(await ledgerFor(tokenId)).toHaveLength(1);
    expect(await tokenRow(tokenId)).toEqual({ spent: 2_500_000, held: 0 });
  });
});
