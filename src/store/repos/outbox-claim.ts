// The claim both outboxes (client callbacks, alert webhook deliveries) take on a due row: a compare-and-set on its
// next_at, which moves it `leaseMs` ahead. Only one instance wins a given attempt; a claimer that dies before
// recording the outcome leaves the row due again once the lease has passed.
import { CompiledQuery, type Kysely, type Selectable } from 'kysely';
import type { Database } from '../schema.ts';

type OutboxTable = 'callbacks' | 'webhook_deliveries';

export interface Claimed<R> {
  row: R;
  /** This attempt's number (1 for the first). */
  attempt: number;
}

export async function claimDue<T extends OutboxTable>(
  db: Kysely<Database>,
  table: T,
  now: number,
  leaseMs: number,
  max = 50,
): Promise<Array<Claimed<Selectable<Database[T]>>>> {
  // The two tables share the outbox columns; Kysely is given one name to type them by.
  const t = table as 'callbacks';
  const q = dueQuery(db, t, max);
  const due = (
    await db.executeQuery<Selectable<Database['callbacks']>>(
      CompiledQuery.raw(
        q.sql,
        q.parameters.map((p) => (p === NOW ? now : p)),
      ),
    )
  ).rows;
  const claimed: Array<Claimed<Selectable<Database[T]>>> = [];
  for (const row of due) {
    const attempt = Number(row.attempts) + 1;
    const r = await db
      .updateTable(t)
      .set({ next_at: now + leaseMs, attempts: attempt, updated_at: now })
      .where('id', '=', row.id)
      .where('state', '=', 'pending')
      .where('next_at', '=', row.next_at)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 1) claimed.push({ row: row as unknown as Selectable<Database[T]>, attempt });
  }
  return claimed;
}

/** Puts a claimed row back, due at `until`, its attempt not counted (its receiver's host had its share of sends). */
export async function deferClaimed(
  db: Kysely<Database>,
  table: OutboxTable,
  id: string,
  attempt: number,
  until: number,
): Promise<void> {
  const t = table as 'callbacks';
  await db
    .updateTable(t)
    .set({ next_at: until, attempts: attempt - 1 })
    .where('id', '=', id)
    .where('state', '=', 'pending')
    .where('attempts', '=', attempt)
    .execute();
}

// The due-rows query runs every round of each outbox (every second by default), almost always to find nothing: it is
// built and compiled once per database, table and size, and each round binds its time in place of NOW.
const NOW = -1;
const dueQueries = new WeakMap<Kysely<Database>, Map<string, CompiledQuery>>();

function dueQuery(db: Kysely<Database>, t: 'callbacks', max: number): CompiledQuery {
  let byTable = dueQueries.get(db);
  if (byTable === undefined) dueQueries.set(db, (byTable = new Map()));
  const key = `${t}:${max}`;
  let q = byTable.get(key);
  if (q === undefined) {
    q = db
      .selectFrom(t)
      .selectAll()
      .where('state', '=', 'pending')
      .where('next_at', '<=', NOW)
      .orderBy('next_at')
      .limit(max)
      .compile();
    byTable.set(key, q);
  }
  return q;
}
