// Heavy admin reads of a SQLite file store run on the read thread: while a monthly bill over many ledger rows is
// computed, the event loop keeps answering requests. The same bill on the gateway's own connection holds the loop
// until it is done (the contrast shows the test can tell the two apart). Ordering assertions, no timings.
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answeredDuringBill, pingServer, SEED_MONTH as MONTH } from '../support/busy-loop.ts';
import { sqliteFileStore } from '../support/store.ts';

const ROWS = 200_000;
let fs: Awaited<ReturnType<typeof sqliteFileStore>>;
let ping: Awaited<ReturnType<typeof pingServer>>;

beforeAll(async () => {
  fs = await sqliteFileStore({ readThread: true });
  // Seeded through a connection of the test's own, in one transaction.
  const raw = new BetterSqlite3(fs.file);
  const ins = raw.prepare(
    'INSERT INTO ledger (idempotency_key, token_id, model, kind, quantities, unit_prices, amount, request_id, task_id, upstream_request_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL, ?)',
  );
  raw.transaction(() => {
    for (let i = 0; i < ROWS; i++)
      ins.run(
        `seed_${i}`,
        `tok_${i % 50}`,
        i % 3 ? 'qwx3.7-plus' : 'text-embedding-v4',
        'tokens',
        '{}',
        '{}',
        1 + (i % 7),
        MONTH + (i % 28) * 86_400_000 + i,
      );
  })();
  raw.close();
  ping = await pingServer();
}, 120_000);
afterAll(async () => {
  ping?.close();
  await fs?.cleanup();
});

describe('SQLite read thread', () => {
  it('a monthly bill over many ledger rows runs off the event loop: requests are answered while it computes', async () => {
    expect(fs.store.reads).not.toBe(fs.store.db);
    // The thread is started first, so the requests counted below are answered while the bill's query runs.
    await fs.store.reads.selectFrom('tokens').select('id').execute();
    const r = await answeredDuringBill(fs.store.reads, ping.url);
    expect(r.total).toBe(ROWS);
    expect(r.answered).toBeGreaterThan(0);
    expect(fs.store.reader!.inFlight).toBe(0);
  });

  it('contrast: the same bill on the gateway connection answers no request until it is done', async () => {
    const r = await answeredDuringBill(fs.store.db, ping.url);
    expect(r.total).toBe(ROWS);
    expect(r.answered).toBe(0);
  });

  it('read-only: a write sent to the read thread is refused, the store is untouched', async () => {
    await expect(fs.store.reads.deleteFrom('ledger').execute()).rejects.toThrow();
    expect(
      Number(
        (
          await fs.store.db
            .selectFrom('ledger')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      ),
    ).toBe(ROWS);
  });
});
