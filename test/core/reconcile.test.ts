// Reconciliation after a stretch of mixed traffic with faults, through the real server on the test store: the
// ledger and the stored upstream usage agree to the micro-unit; a tampered or missing charge is reported, and a charge
// whose request-log row is missing is told apart from one that prices differently.
import { describe, expect, it } from 'vitest';
import { isClean, reconcile } from '../../src/core/reconcile.ts';
import { ReconcileRepo } from '../../src/store/repos/reconcile.ts';
import { useHarness } from '../support/harness.ts';

const ctx = useHarness({
  env: {
    TOLLWAY_TASK_TICK_MS: '40',
    TOLLWAY_TASK_POLL_BASE_MS: '40',
    TOLLWAY_TASK_POLL_MAX_MS: '200',
    TOLLWAY_TASK_REFRESH_STALE_MS: '0',
  },
  sim: { taskDurationMs: 200 },
});

const chat = (content: string, extra: Record<string, unknown> = {}) => ({
  model: 'qwx3.7-plus',
  messages: [{ role: 'user', content }],
  ...extra,
});

async function traffic(token: string): Promise<{ videos: string[]; vidx: string[] }> {
  const h = ctx.h;
  const post = (path: string, json: unknown) =>
    h.fetch(path, { method: 'POST', token, json }).then(async (r) => ({
      status: r.status,
      json: (await r.json().catch(() => null)) as Record<string, unknown> | null,
    }));
  const calls: Array<Promise<unknown>> = [];
  for (let i = 0; i < 6; i++) {
    calls.push(post('/v1/chat/completions', chat(`hello ${i}`)));
    calls.push(
      h
        .fetch('/v1/chat/completions', {
          method: 'POST',
          token,
          json: chat(i % 2 ? `tell me ${i} sim-fault:cut` : `tell me ${i}`, { stream: true }),
        })
        .then((r) => r.text()),
    );
    calls.push(post('/v1/embeddings', { model: 'text-embedding-v4', input: [`text ${i}`] }));
    calls.push(post('/v1/responses', { model: 'qwx3.7-plus', input: `hi ${i}` }));
    calls.push(
      post('/v1/messages', { model: 'qwx3.7-plus', max_tokens: 50, messages: [{ role: 'user', content: `hey ${i}` }] }),
    );
    calls.push(
      post('/v1/images/generations', {
        model: 'qwx-image-2.0',
        prompt: i % 3 ? `cat ${i}` : `cat ${i} sim-fault:partial`,
        n: 2,
      }),
    );
    calls.push(post('/v1/chat/completions', chat(`x ${i} sim-fault:status:500`)));
  }
  await Promise.all(calls);
  const videos: string[] = [];
  const vidx: string[] = [];
  for (let i = 0; i < 4; i++) {
    const v = await post('/v1/videos', {
      model: 'hhx-1.1-t2v',
      prompt: i % 2 ? `waves ${i} sim-fault:fail-task` : `waves ${i}`,
      seconds: 3,
    });
    videos.push(String(v.json?.id));
    const a = await post('/vidx/v1/videos/text2video', {
      model_name: 'vidx-v1',
      prompt: i % 2 ? `clouds ${i} sim-fault:fail-task` : `clouds ${i}`,
      duration: '5',
    });
    vidx.push(String((a.json?.data as Record<string, unknown> | undefined)?.task_id));
  }
  return { videos, vidx };
}

async function waitAllTerminal(ids: string[]): Promise<void> {
  const db = ctx.h.store.db;
  for (let i = 0; i < 300; i++) {
    const open = await db
      .selectFrom('tasks')
      .select('id')
      .where('id', 'in', ids)
      .where('state', 'not in', ['succeeded', 'failed', 'cancelled'])
      .execute();
    if (open.length === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('tasks never finished');
}

async function report(from: number) {
  const h = ctx.h;
  await h.gw.deps.meter.flush();
  await h.gw.deps.requestLog.flush();
  const to = Date.now() + 1;
  return reconcile(await new ReconcileRepo(h.store.db).read(from, to), from, to);
}

describe('reconcile', () => {
  it('mixed traffic with faults → zero difference, nothing to look at; a tampered or lost charge is reported', async () => {
    const h = ctx.h;
    const from = Date.now();
    const quota = await h.token({ name: 'recon-quota', quota: 50_000_000 });
    const free = await h.token({ name: 'recon-free' });
    const a = await traffic(free.secret);
    const b = await traffic(quota.secret);
    await waitAllTerminal([...a.videos, ...a.vidx, ...b.videos, ...b.vidx]);
    const clean = await report(from);
    expect(clean.groups.length).toBeGreaterThanOrEqual(5);
    expect(clean.groups.reduce((s, g) => s + g.charges, 0)).toBeGreaterThan(50);
    expect(clean.mismatches).toEqual([]);
    expect(clean.open_holds).toEqual([]);
    expect(clean.tasks_charged_without_success).toEqual([]);
    expect(clean.successes_without_charge).toEqual([]);
    expect(clean.lost_submits).toEqual([]);
    expect(clean.difference).toBe(0);
    expect(isClean(clean)).toBe(true);
    // The admin API gives the same report.
    const viaApi = await h.admin(`/admin/reconcile?from=${from}&to=${clean.to}`);
    expect(viaApi.status).toBe(200);
    expect(await viaApi.json()).toMatchObject({
      difference: 0,
      mismatches: [],
      open_holds: [],
      tasks_charged_without_success: [],
      successes_without_charge: [],
      lost_submits: [],
    });

    // One charge raised by a micro-unit, one removed: both are named, and the totals differ by what changed.
    const rows = await h.store.db
      .selectFrom('ledger')
      .select(['id', 'idempotency_key', 'amount', 'request_id', 'task_id'])
      .where('created_at', '>=', from)
      .orderBy('id')
      .execute();
    const sync = rows.filter((r) => r.task_id === null);
    const task = rows.find((r) => r.task_id !== null)!;
    await h.store.db
      .updateTable('ledger')
      .set({ amount: Number(sync[0]!.amount) + 1 })
      .where('id', '=', sync[0]!.id)
      .execute();
    await h.store.db.deleteFrom('ledger').where('id', '=', task.id).execute();
    const off = await report(from);
    expect(isClean(off)).toBe(false);
    expect(off.mismatches.map((m) => m.key)).toContain(sync[0]!.idempotency_key);
    expect(off.successes_without_charge.map((s) => s.task_id)).toEqual([task.task_id]);
    expect(off.difference).toBe(1);

    // A crash lost a call's request-log row (both rows are written behind): listed as such, and out of the difference;
    // a row that is there without its usage stays a mismatch that counts.
    const [lostLog, noUsage] = [sync[1]!, sync[2]!];
    await h.store.db.deleteFrom('request_log').where('request_id', '=', lostLog.request_id!).execute();
    await h.store.db
      .updateTable('request_log')
      .set({ usage: null })
      .where('request_id', '=', noUsage.request_id!)
      .execute();
    const lost = await report(from);
    const reasonOf = (key: string) =>
      lost.mismatches.filter((m) => m.key === key).map((m) => [m.reason, m.reported_amount]);
    expect(reasonOf(lostLog.idempotency_key)).toEqual([['request-log row missing', null]]);
    expect(reasonOf(noUsage.idempotency_key)).toEqual([['no stored usage for this charge', null]]);
    expect(lost.difference).toBe(1 + Number(noUsage.amount));
    expect(isClean(lost)).toBe(false);
  });
});
