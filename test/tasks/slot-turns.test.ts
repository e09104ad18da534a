// The parallel-task queue takes turns across customers (src/store/repos/slot-turns.ts), submits several tasks at once,
// and caps the tasks one token or account may have waiting (src/tasks/slot-caps.ts), on the store of the test run.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isGatewayError } from '../../src/errors/gateway-error.ts';
import { AccountsRepo } from '../../src/store/repos/accounts.ts';
import { TokensRepo } from '../../src/store/repos/tokens.ts';
import type { TaskEngine } from '../../src/tasks/engine.ts';
import type { TaskRecord } from '../../src/tasks/types.ts';
import { SlotDriver, SlotUpstream } from '../support/slot-upstream.ts';
import { engineFixture, type EngineFixture } from '../support/task-engine.ts';
import { until } from '../support/wait.ts';

let f: EngineFixture;
let up: SlotUpstream;
let driver: SlotDriver;
let seq = 0;

beforeEach(async () => {
  f = await engineFixture();
  up = new SlotUpstream(2);
  driver = new SlotDriver(up);
});
afterEach(async () => f.cleanup());

function engine(opts: Parameters<EngineFixture['engine']>[0] = {}): TaskEngine {
  const e = f.engine({ pollBaseMs: 10_000, pollMaxMs: 60_000, ...opts });
  e.registerDriver('test-video', driver);
  return e;
}

const QUEUE = 'kling:acct|kling-v2-6';

function create(e: TaskEngine, tokenId: string): Promise<TaskRecord> {
  const id = `task_turn${seq++}`;
  return e.create(
    f.input(e, {
      id,
      tokenId,
      slot: { queue: QUEUE, stored: { path: 'text2video', body: { prompt: `for ${id}` } } },
      submit: (taskId) => up.accept(taskId),
    }),
  );
}

async function token(accountId: string | null = null): Promise<string> {
  const id = `tok_turn_${seq++}`;
  await new TokensRepo(f.store.db).create({
    id,
    name: id,
    secretHash: `h_${id}`,
    prefix: 'tw_x',
    models: null,
    quota: null,
    expiresAt: null,
    accountId,
  });
  return id;
}

async function account(): Promise<string> {
  const id = `acct_turn_${seq++}`;
  await new AccountsRepo(f.store.db).create({
    id,
    name: id,
    quota: null,
    budgets: [],
    priceGroup: null,
    timeZone: null,
    expiresAt: null,
  });
  return id;
}

const stateOf = async (id: string) =>
  (await f.store.db.selectFrom('tasks').select('state').where('id', '=', id).executeTakeFirstOrThrow()).state;
const holdState = async (id: string) =>
  (await f.store.db.selectFrom('holds').select('state').where('hold_key', '=', id).executeTakeFirst())?.state;

/**
 * The upstream finishes `id` (its slot frees there); the poller sees it end at its next round and tries the next turns.
 */
async function finishAndServe(e: TaskEngine, id: string): Promise<void> {
  up.open.delete(id);
  driver.outcomes.set(`up_${id}`, { state: 'succeeded', upstreamStatus: 'succeed' });
  await f.store.db.updateTable('tasks').set({ next_poll_at: 0 }).where('id', '=', id).execute();
  await e.tick();
  await e.tick();
}

describe('fair turns across customers', () => {
  for (const stated of [true, false])
    it(`a 2-slot account (${stated ? "the operator's task_slots" : 'learnt from the refusals'}): one tenant's 24 queued tasks, another's one created after them goes at the first freed slot and succeeds`, async () => {
      f.slotLimit = stated ? 2 : null;
      const e = engine();
      const heavy = await token(await account());
      const light = await token();
      const many: TaskRecord[] = [];
      for (let i = 0; i < 24; i++) many.push(await create(e, heavy));
      expect(many.filter((t) => t.state === 'queued')).toHaveLength(2);
      const other = await create(e, light);
      expect(other.state).toBe('waiting');
      await finishAndServe(e, up.accepted[0]!);
      // The freed slot goes to the tenant that holds none, not to the 22 older tasks of the one that holds the rest.
      expect(up.accepted.slice(0, 3)).toEqual([many[0]!.id, many[1]!.id, other.id]);
      expect(await stateOf(other.id)).toBe('queued');
      await finishAndServe(e, other.id);
      expect(await stateOf(other.id)).toBe('succeeded');
      expect(await holdState(other.id)).toBe('settled');
      // The heavy tenant goes on, in its own order.
      expect(up.accepted[3]).toBe(many[2]!.id);
    });

  it('two tenants with tasks waiting on one slot take turns, each in its own creation order', async () => {
    f.slotLimit = 1;
    const e = engine();
    const a = await token();
    const b = await token();
    const as: string[] = [];
    const bs: string[] = [];
    for (let i = 0; i < 4; i++) as.push((await create(e, a)).id);
    for (let i = 0; i < 3; i++) bs.push((await create(e, b)).id);
    for (let i = 0; i < 6; i++) await finishAndServe(e, up.accepted.at(-1)!);
    expect(up.accepted).toEqual([as[0], bs[0], as[1], bs[1], as[2], bs[2], as[3]]);
  });
});

describe('several submits of a queue at once', () => {
  it('creations of a queue with room are sent together: one slow submit does not hold the others', async () => {
    up.slots = 10;
    let open!: () => void;
    up.gate = new Promise((r) => (open = r));
    const e = engine({ slotSubmits: 3 });
    const tok = await token();
    const created = Promise.all([create(e, tok), create(e, tok), create(e, tok)]);
    await until(() => up.attempts.length === 3, 'three submits of one queue in flight together');
    open();
    expect((await created).map((t) => t.state)).toEqual(['queued', 'queued', 'queued']);
  });

  it('never more in flight than the setting', async () => {
    up.slots = 10;
    let open!: () => void;
    up.gate = new Promise((r) => (open = r));
    const e = engine({ slotSubmits: 2 });
    const tok = await token();
    const created = Promise.all([create(e, tok), create(e, tok), create(e, tok)]);
    await until(() => up.attempts.length === 2, 'two submits in flight');
    await new Promise((r) => setTimeout(r, 100));
    expect(up.attempts).toHaveLength(2);
    open();
    await created;
    expect(up.accepted).toHaveLength(3);
  });
});

describe('the cap on waiting tasks', () => {
  async function refused(p: Promise<unknown>): Promise<unknown> {
    const e = await p.then(
      () => null,
      (err: unknown) => err,
    );
    expect(isGatewayError(e) && e.code).toBe('task_queue_full');
    return e;
  }
  const rows = (tokenId: string) =>
    f.store.db.selectFrom('tasks').select('id').where('token_id', '=', tokenId).execute();
  const holds = (tokenId: string) =>
    f.store.db.selectFrom('holds').select('hold_key').where('token_id', '=', tokenId).execute();

  it('per token: past it a creation is refused before any hold or upstream call; another token is not affected', async () => {
    up.slots = 0;
    const e = engine({ queueMaxPerToken: 2, queueMaxPerAccount: 0 });
    const tok = await token();
    const other = await token();
    await create(e, tok);
    await create(e, tok);
    const attempts = up.attempts.length;
    const err = await refused(create(e, tok));
    expect(String((err as Error).message)).toMatch(/this token already has 2 tasks waiting/);
    expect(up.attempts).toHaveLength(attempts);
    expect(await rows(tok)).toHaveLength(2);
    expect(await holds(tok)).toHaveLength(2);
    expect((await create(e, other)).state).toBe('waiting');
  });

  it("per account: its tokens' waiting tasks count together", async () => {
    up.slots = 0;
    const e = engine({ queueMaxPerToken: 0, queueMaxPerAccount: 3 });
    const acct = await account();
    const t1 = await token(acct);
    const t2 = await token(acct);
    await create(e, t1);
    await create(e, t1);
    await create(e, t2);
    await refused(create(e, t2));
    await refused(create(e, t1));
    expect(await holds(t2)).toHaveLength(1);
    expect((await create(e, await token())).state).toBe('waiting');
  });

  it('a waiting task out on a retried creation still counts: a creation meanwhile is refused', async () => {
    up.slots = 0;
    const e = engine({ queueMaxPerToken: 2, queueMaxPerAccount: 0 });
    const tok = await token();
    const [a] = [await create(e, tok), await create(e, tok)];
    // The poller retries the first one: its creation is held out at the upstream, the task `submitting`.
    await f.store.db.updateTable('tasks').set({ next_poll_at: 0 }).where('id', '=', a!.id).execute();
    let release!: () => void;
    up.gate = new Promise<void>((r) => (release = r));
    const sent = up.nextAttempt();
    const round = e.tick();
    try {
      expect(await sent).toBe(a!.id);
      expect(await stateOf(a!.id)).toBe('submitting');
      const err = await refused(create(e, tok));
      expect(String((err as Error).message)).toMatch(/this token already has 2 tasks waiting/);
    } finally {
      up.gate = null;
      release();
      await round;
    }
    expect(await stateOf(a!.id)).toBe('waiting'); // refused again upstream: back to waiting
    expect(await rows(tok)).toHaveLength(2);
  });

  it('concurrent creations never pass the cap together', async () => {
    up.slots = 0;
    const e = engine({ queueMaxPerToken: 3, queueMaxPerAccount: 0 });
    const tok = await token();
    const all = await Promise.allSettled(Array.from({ length: 12 }, () => create(e, tok)));
    expect(all.filter((r) => r.status === 'fulfilled').length).toBeLessThanOrEqual(3);
    expect((await rows(tok)).length).toBeLessThanOrEqual(3);
  });
});
