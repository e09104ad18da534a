// The ledger's task and token/time filters and the reservation reaper are served by indexes, on both stores.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshStore, testDialect } from '../support/store.ts';

let fresh: Awaited<ReturnType<typeof freshStore>>;
beforeAll(async () => {
  fresh = await freshStore();
  if (testDialect() === 'postgres') {
    // With two usable indexes (the token's, and the time alone: migration 070) PostgreSQL picks by its statistics:
    // a ledger as it is (many tokens, a busy hour) makes the token's index the cheap one, as in production.
    await sql`INSERT INTO ledger (idempotency_key, token_id, model, kind, quantities, unit_prices, amount, created_at)
      SELECT 'k' || g, 'tok' || (g % 500), 'm', 'tokens', '{}', '{}', 1, 1 + (g % 2)
      FROM generate_series(1, 20000) AS g`.execute(fresh.store.db);
    await sql`ANALYZE ledger`.execute(fresh.store.db);
  }
});
afterAll(async () => fresh?.cleanup());

async function plan(query: string): Promise<string> {
  const db = fresh.store.db;
  if (testDialect() === 'postgres') {
    // Tiny tables make a sequential scan cheaper; forbid it to see which index the planner can use.
    return db.connection().execute(async (c) => {
      await sql`set enable_seqscan = off`.execute(c);
      const r = await sql.raw<{ 'QUERY PLAN': string }>(`explain ${query}`).execute(c);
      await sql`reset enable_seqscan`.execute(c);
      return r.rows.map((x) => x['QUERY PLAN']).join('\n');
    });
  }
  const r = await sql.raw<{ detail: string }>(`explain query plan ${query}`).execute(db);
  return r.rows.map((x) => x.detail).join('\n');
}

describe('ledger and holds indexes', () => {
  for (const [query, index] of [
    ["select * from ledger where task_id = 'task_1'", 'ledger_task'],
    [
      "select * from ledger where token_id = 't' and model = 'm' and created_at >= 1 and created_at < 2",
      'ledger_token_time',
    ],
    ["select * from holds where state = 'held' and created_at < 5", 'holds_state_time'],
  ] as const) {
    it(`${query} uses ${index}`, async () => {
      expect(await plan(query)).toContain(index);
    });
  }
});
