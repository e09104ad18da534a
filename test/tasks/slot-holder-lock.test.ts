// PostgreSQL (READ COMMITTED): a waiting task's move to `submitting` and its holder's revocation never pass each other
// unseen. A move whose statement read the holder live just before the revocation committed, but which commits only
// after the revocation counted its creations in flight, would be missed by that count: the revocation would answer
// and the creation go out. The move locks the holder's rows (slot-holders.ts lockHolder), so the revocation's UPDATE
// waits for the move to commit, and its count then sees the move. SQLite has a single writer: nothing to race.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { stopHolder } from '../../src/core/admin/holder-stop.ts';
import { AccountsRepo } from '../../src/store/repos/accounts.ts';
import { SlotQueueRepo } from '../../src/store/repos/slot-queue.ts';
import { TokensRepo } from '../../src/store/repos/tokens.ts';
import type { TaskEngine } from '../../src/tasks/engine.ts';
import type { TaskRecord } from '../../src/tasks/types.ts';
import { SlotDriver, SlotUpstream } from '../support/slot-upstream.ts';
import { testDialect } from '../support/store.ts';
import { engineFixture, type EngineFixture } from '../support/task-engine.ts';
import { until } from '../support/wait.ts';

const QUEUE = 'kling:acct|kling-v2-6';
let f: EngineFixture;
let up: SlotUpstream;
let seq = 0;

beforeEach(async () => {
  f = await engineFixture();
  up = new SlotUpstream(1);
});
afterEach(async () => f.cleanup());

function create(e: TaskEngine): Promise<TaskRecord> {
  const id = `task_lock${seq++}`;
  return e.create(
    f.input(e, {
      id,
      slot: { queue: QUEUE, stored: { path: 'text2video', body: { prompt: `for ${id}` } } },
      submit: (t) => up.accept(t),
    }),
  );
}

/** The sessions that `pid` blocks (waiting for one of its locks). */
async function blockedBy(pid: number): Promise<number[]> {
  const r = await sql<{
    pid: number;
  }>`SELECT pid FROM pg_stat_activity WHERE ${pid} = ANY(pg_blocking_pids(pid))`.execute(f.store.db);
  return r.rows.map((x) => x.pid);
}

describe.runIf(testDialect() === 'postgres')(
  'a move to submit that commits just after a revocation (PostgreSQL)',
  () => {
    for (const holder of ['token', 'account'] as const)
      it(`the ${holder}'s revocation waits for the move to commit, and then waits for its creation in flight`, async () => {
        if (holder === 'account') {
          await new AccountsRepo(f.store.db).create({
            id: 'acct_lock',
            name: 'lock',
            quota: null,
            budgets: [],
            priceGroup: null,
            timeZone: null,
            expiresAt: null,
          });
          await f.store.db.updateTable('tokens').set({ account_id: 'acct_lock' }).where('id', '=', f.tokenId).execute();
        }
        const e = f.engine({ pollBaseMs: 10_000, pollMaxMs: 60_000 });
        e.registerDriver('test-video', new SlotDriver(up));
        await create(e);
        const waiting = await create(e);
        expect(waiting.state).toBe('waiting');
        // Its slot frees: the waiting task is due (as a poller round finds it) and may move on.
        up.open.clear();
        await f.store.db.updateTable('tasks').set({ state: 'succeeded' }).where('id', '!=', waiting.id).execute();
        await f.store.db
          .updateTable('tasks')
          .set({ lease_owner: e.owner, next_poll_at: 0 })
          .where('id', '=', waiting.id)
          .execute();

        // Another session holds the queue's turn row: the move passes its own UPDATE (the holder then live) and then
        // waits there, uncommitted.
        let release!: () => void;
        const gate = new Promise<void>((r) => (release = r));
        let holderPid = 0;
        const holding = f.store.db.transaction().execute(async (trx) => {
          holderPid = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx)).rows[0]!.pid;
          await sql`INSERT INTO task_slot_queues (queue, vtime) VALUES (${QUEUE}, 0)
          ON CONFLICT (queue) DO UPDATE SET vtime = task_slot_queues.vtime`.execute(trx);
          await gate;
        });
        await until(() => holderPid !== 0, 'the other session holds the turn row');
        try {
          const turn = { id: waiting.id, queue: QUEUE, owner: e.owner, leaseMs: 600_000, limit: null, submits: 4 };
          const moved = new SlotQueueRepo(f.store.db, f.store.dialect).promote(turn);
          let movePid = 0;
          await until(
            async () => (movePid = (await blockedBy(holderPid))[0] ?? 0) !== 0,
            'the move waits, its UPDATE done',
          );

          let answered = false;
          const revoke =
            holder === 'token'
              ? () => new TokensRepo(f.store.db).revoke(f.tokenId)
              : () => new AccountsRepo(f.store.db).revoke('acct_lock');
          const of = holder === 'token' ? { tokenId: f.tokenId } : { accountId: 'acct_lock' };
          const revocation = (async () => {
            await revoke();
            await stopHolder(f.store.db, of, 600_000);
            answered = true;
          })();
          // Without the lock the revocation's UPDATE passes the uncommitted move and its count finds nothing in flight.
          await until(
            async () => answered || (await blockedBy(movePid)).length > 0,
            'the revocation answers or waits for the move',
          );
          expect(answered).toBe(false);

          release();
          await holding;
          expect(await moved).toBe(true);
          const table = holder === 'token' ? 'tokens' : 'accounts';
          await until(async () => {
            const r = await sql<{
              n: number | string;
            }>`SELECT count(*) AS n FROM ${sql.table(table)} WHERE revoked_at IS NOT NULL`.execute(f.store.db);
            return Number(r.rows[0]?.n) > 0;
          }, 'the revocation is stored');
          // Its count sees the move: the revocation waits for that creation's answer.
          expect(answered).toBe(false);
          await f.store.db.updateTable('tasks').set({ state: 'failed' }).where('id', '=', waiting.id).execute();
          await revocation;
          expect(answered).toBe(true);
        } finally {
          release(); // a failure must not leave the session holding its lock
          await holding;
        }
      });
  },
);
