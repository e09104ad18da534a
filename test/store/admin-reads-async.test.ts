// On the suite's dialect: a monthly bill over many ledger rows, read through the store's `reads` (what the admin
// routes use), leaves the event loop free — on SQLite through the read thread, on PostgreSQL through the pool.
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { answeredDuringBill, pingServer, SEED_MONTH } from '../support/busy-loop.ts';
import { testDialect, useStore } from '../support/store.ts';

const ROWS = 200_000;
const fresh = useStore();
let ping: Awaited<ReturnType<typeof pingServer>>;

beforeAll(async () => {
  const { store, url } = fresh;
  if (testDialect() === 'postgres') {
    await sql`INSERT INTO ledger (idempotency_key, token_id, model, kind, quantities, unit_prices, amount, created_at)
      SELECT 'seed_' || i, 'tok_' || (i % 50), CASE WHEN i % 3 = 0 THEN 'text-embedding-v4' ELSE 'qwx3.7-plus' END, 'tokens', '{}', '{}', 1 + i % 7,
        ${SEED_MONTH}::bigint + (i % 28) * 86400000::bigint + i
      FROM generate_series(0, ${ROWS - 1}) AS i`.execute(store.db);
  } else {
    const raw = new BetterSqlite3(url.replace(/^sqlite:/, ''));
    const ins = raw.prepare(
      "INSERT INTO ledger (idempotency_key, token_id, model, kind, quantities, unit_prices, amount, created_at) VALUES (?, ?, ?, 'tokens', '{}', '{}', ?, ?)",
    );
    raw.transaction(() => {
      for (let i = 0; i < ROWS; i++)
        ins.run(
          `seed_${i}`,
          `tok_${i % 50}`,
          i % 3 ? 'qwx3.7-plus' : 'text-embedding-v4',
          1 + (i % 7),
          SEED_MONTH + (i % 28) * 86_400_000 + i,
        );
    })();
    raw.close();
  }
  ping = await pingServer();
  // Any thread or pool connection is up before the bill.
  await store.reads.selectFrom('tokens').select('id').execute();
}, 120_000);
afterAll(() => ping?.close());

it('requests are answered while a monthly bill over many ledger rows computes', async () => {
  const r = await answeredDuringBill(fresh.store.reads, ping.url);
  expect(r.total).toBe(ROWS);
  expect(r.answered).toBeGreaterThan(0);
});
