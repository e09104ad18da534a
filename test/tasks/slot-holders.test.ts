// A task waiting for a parallel-task slot whose token or account may no longer spend (expired, out of quota, revoked)
// is never sent: the poller ends it failed and uncharged, and the move to submit it refuses it on its own.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stopHolder } from '../../src/core/admin/holder-stop.ts';
import { AccountsRepo } from '../../src/store/repos/accounts.ts';
import { waitingDueFor } from '../../src/store/repos/slot-holders.ts';
import { SlotQueueRepo } from '../../src/store/repos/slot-queue.ts';
import type { TaskEngine } from '../../src/tasks/engine.ts';
import type { TaskRecord } from '../../src/tasks/types.ts';
import { SlotDriver, SlotUpstream } from '../support/slot-upstream.ts';
import { engineFixture, type EngineFixture } from '../support/task-engine.ts';

let f: EngineFixture;
let up: SlotUpstream;
let seq = 0;

beforeEach(async () => {
  f = await engineFixture();
  up = new SlotUpstream(1);
});
afterEach(async () => f.cleanup());

function engine(): TaskEngine {
  const e = f.engine({ pollBaseMs: 10_000, pollMaxMs: 60_000 });
  e.registerDriver('test-video', new SlotDriver(up));
  return e;
}

function create(e: TaskEngine): Promise<TaskRecord> {
  const id = `task_holder${seq++}`;
  return e.create(
    f.input(e, {
      id,
      slot: { queue: 'kling:acct|kling-v2-6', stored: { path: 'text2video', body: { prompt: `for ${id}` } } },
      submit: (t) => up.accept(t),
    }),
  );
}

const row = (id: string) =>
  f.store.db.selectFrom('tasks').select(['state', 'error']).where('id', '=', id).executeTakeFirstOrThrow();
const holdState = async (id: string) =>
  (await f.store.db.selectFrom('holds').select('state').where('hold_key', '=', id).executeTakeFirst())?.state;

/** The running task ends upstream (its slot frees) and every open task is due: one poller round. */
async function slotFrees(e: TaskEngine): Promise<void> {
  up.open.clear();
  await f.store.db.updateTable('tasks').set({ next_poll_at: 0 }).where('state', 'in', ['waiting', 'queued']).execute();
  await e.tick();
  await e.tick();
}

describe('a waiting task whose holder may no longer spend', () => {
  for (const [what, change, code] of [
    [
      'its token expires',
      () => f.store.db.updateTable('tokens').set({ expires_at: 1 }).where('id', '=', f.tokenId).execute(),
      'token_expired',
    ],
    [
      'its quota is lowered below what it holds',
      () => f.store.db.updateTable('tokens').set({ quota: 1 }).where('id', '=', f.tokenId).execute(),
      'insufficient_quota',
    ],
    [
      'its token is revoked',
      () => f.store.db.updateTable('tokens').set({ revoked_at: 1 }).where('id', '=', f.tokenId).execute(),
      'token_revoked',
    ],
  ] as const)
    it(`${what}: it ends failed (${code}), never sent, its hold released`, async () => {
      const e = engine();
      await create(e);
      const waiting = await create(e);
      expect(waiting.state).toBe('waiting');
      await change();
      await slotFrees(e);
      const r = await row(waiting.id);
      expect(r.state).toBe('failed');
      expect(JSON.parse(r.error!)).toMatchObject({
        code,
        message: expect.stringMatching(/not submitted and not charged/),
      });
      expect(await holdState(waiting.id)).toBe('released');
      expect(up.attempts.filter((id) => id === waiting.id)).toHaveLength(1); // its first try only, refused
    });

  it('the move to submit refuses a revoked holder on its own (a revocation just after the check)', async () => {
    const e = engine();
    await create(e);
    const waiting = await create(e);
    up.open.clear();
    await f.store.db.updateTable('tasks').set({ state: 'succeeded' }).where('id', '!=', waiting.id).execute();
    await f.store.db.updateTable('tokens').set({ revoked_at: 1 }).where('id', '=', f.tokenId).execute();
    const repo = new SlotQueueRepo(f.store.db, f.store.dialect);
    await f.store.db.updateTable('tasks').set({ lease_owner: e.owner }).where('id', '=', waiting.id).execute();
    const turn = {
      id: waiting.id,
      queue: 'kling:acct|kling-v2-6',
      owner: e.owner,
      leaseMs: 60_000,
      limit: null,
      submits: 4,
    };
    expect(await repo.promote(turn)).toBe(false);
    await f.store.db.updateTable('tokens').set({ revoked_at: null }).where('id', '=', f.tokenId).execute();
    expect(await repo.promote(turn)).toBe(true);
  });
  it('a revocation while its retried creation is out: the refusal ends it at once, not at its next look', async () => {
    const e = engine();
    await create(e);
    const waiting = await create(e);
    await f.store.db.updateTable('tasks').set({ next_poll_at: 0 }).where('id', '=', waiting.id).execute();
    let release!: () => void;
    up.gate = new Promise<void>((r) => (release = r));
    const sent = up.nextAttempt();
    const round = e.tick();
    expect(await sent).toBe(waiting.id);
    // The admin path: revoked, and its waiting tasks made due (this one is being submitted, so it is not waiting).
    await f.store.db.updateTable('tokens').set({ revoked_at: 1 }).where('id', '=', f.tokenId).execute();
    await waitingDueFor(f.store.db, { tokenId: f.tokenId });
    up.gate = null;
    release();
    await round;
    const r = await row(waiting.id);
    expect(r.state).toBe('failed');
    expect(JSON.parse(r.error!)).toMatchObject({ code: 'token_revoked' });
    expect(await holdState(waiting.id)).toBe('released');
  });

  it('its ACCOUNT is revoked (the token itself is not): it ends failed (token_revoked), never sent, its hold released', async () => {
    const accounts = new AccountsRepo(f.store.db);
    await accounts.create({
      id: 'acct_holder',
      name: 'holder',
      quota: null,
      budgets: [],
      priceGroup: null,
      timeZone: null,
      expiresAt: null,
    });
    await f.store.db.updateTable('tokens').set({ account_id: 'acct_holder' }).where('id', '=', f.tokenId).execute();
    const e = engine();
    await create(e);
    const waiting = await create(e);
    expect(waiting.state).toBe('waiting');
    expect(await accounts.revoke('acct_holder')).toBe(true);
    await waitingDueFor(f.store.db, { accountId: 'acct_holder' });
    await slotFrees(e);
    const r = await row(waiting.id);
    expect(r.state).toBe('failed');
    expect(JSON.parse(r.error!)).toMatchObject({
      code: 'token_revoked',
      message: expect.stringMatching(/revoked while the task waited .*not charged/),
    });
    expect(await holdState(waiting.id)).toBe('released');
    expect(up.attempts.filter((id) => id === waiting.id)).toHaveLength(1);
    expect(up.accepted).not.toContain(waiting.id);
  });

  it('the revocation answers only once the retried creation out at that moment has its answer (refused: the task ends)', async () => {
    const e = engine();
    await create(e);
    const waiting = await create(e);
    await f.store.db.updateTable('tasks').set({ next_poll_at: 0 }).where('id', '=', waiting.id).execute();
    let release!: () => void;
    up.gate = new Promise<void>((r) => (release = r));
    const sent = up.nextAttempt();
    const round = e.tick();
    expect(await sent).toBe(waiting.id);
    await f.store.db.updateTable('tokens').set({ revoked_at: Date.now() }).where('id', '=', f.tokenId).execute();
    let atAnswer = '';
    const stopped = stopHolder(f.store.db, { tokenId: f.tokenId }).then(
      async () => void (atAnswer = (await row(waiting.id)).state),
    );
    // The creation is held out until the revocation answers or a moment passes; whichever comes first, the answer
    // must find it no longer being submitted (without the wait it answers at once, the creation still out).
    await Promise.race([stopped, new Promise((r) => setTimeout(r, 200))]);
    up.gate = null;
    release(); // the upstream refuses it (its one slot is taken)
    await stopped;
    expect(atAnswer).not.toBe('submitting');
    await round;
    expect((await row(waiting.id)).state).toBe('failed');
    expect(await holdState(waiting.id)).toBe('released');
    expect(up.accepted).not.toContain(waiting.id);
  });
});
