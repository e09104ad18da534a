// The list rounds' count of open tasks per channel (openTasksByChannel) is answered from its own partial index: on
// SQLite from the index alone (no table row read per open task), on both stores with the right counts.
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTasksByChannel } from '../../../src/store/repos/task-accounts.ts';
import { freshStore, testDialect, type FreshStore } from '../../support/store.ts';

let fresh: FreshStore;
beforeAll(async () => {
  fresh = await freshStore();
});
afterAll(async () => fresh.cleanup());

const db = () => fresh.store.db as unknown as Kysely<unknown>;

async function task(
  id: string,
  channel: string,
  state: string,
  createdAt: number,
  upstream: string | null = `up_${id}`,
  kind = 'dashscope-video',
) {
  await fresh.store.db
    .insertInto('tasks')
    .values({
      id,
      family: 'v1',
      kind,
      token_id: 'tok_x',
      model: 'm',
      billing_model: 'm',
      upstream_model: 'm',
      channel_id: channel,
      upstream_task_id: upstream,
      request_id: `req_${id}`,
      state,
      request: 'null',
      usage: '{}',
      hold_amount: 0,
      next_poll_at: 0,
      poll_attempts: 0,
      created_at: createdAt,
      updated_at: createdAt,
    })
    .execute();
}

describe('the open listed tasks index (migration 021)', () => {
  it('counts the open tasks with an upstream id per channel, with the oldest creation', async () => {
    await task('t1', 'ch_a', 'queued', 500);
    await task('t2', 'ch_a', 'in_progress', 300);
    await task('t3', 'ch_b', 'in_progress', 900);
    await task('t4', 'ch_b', 'succeeded', 100); // finished
    await task('t5', 'ch_b', 'submitting', 50, null); // not upstream yet
    await task('t6', 'ch_a', 'queued', 10, 'up_t6', 'kling-video'); // another kind
    const rows = (await openTasksByChannel(fresh.store.db, 'dashscope-video')).sort((x, y) =>
      x.channelId.localeCompare(y.channelId),
    );
    expect(rows).toEqual([
      { channelId: 'ch_a', count: 2, oldest: 300 },
      { channelId: 'ch_b', count: 1, oldest: 900 },
    ]);
  });

  it.runIf(testDialect() === 'sqlite')('is read alone, in its grouping order (SQLite)', async () => {
    const plan = (
      await sql<{
        detail: string;
      }>`explain query plan SELECT channel_id, count(*) AS n, min(created_at) AS oldest FROM tasks
        WHERE state IN ('queued', 'in_progress') AND kind = ${'k'} AND upstream_task_id IS NOT NULL GROUP BY channel_id`.execute(
        db(),
      )
    ).rows
      .map((r) => r.detail)
      .join('\n');
    expect(plan).toContain('COVERING INDEX tasks_open_listed');
    expect(plan).not.toMatch(/TEMP B-TREE/);
  });
});
