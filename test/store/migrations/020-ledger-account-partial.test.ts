// The ledger's account index holds the charges of tokens in an account only (a charge of no account adds no entry),
// and the reads by account still use it, on both stores.
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshStore, testDialect, type FreshStore } from '../../support/store.ts';

let fresh: FreshStore;
beforeAll(async () => {
  fresh = await freshStore();
});
afterAll(async () => fresh.cleanup());

const db = () => fresh.store.db as unknown as Kysely<unknown>;
const pgSchema = () => fresh.pgSchema ?? '';

describe('the ledger account index (migration 020)', () => {
  it('is partial: only rows with an account', async () => {
    const def =
      testDialect() === 'postgres'
        ? (
            await sql<{
              d: string;
            }>`select indexdef as d from pg_indexes where schemaname = ${pgSchema()} and indexname = 'ledger_account_time'`.execute(
              db(),
            )
          ).rows[0]?.d
        : (
            await sql<{
              d: string;
            }>`select sql as d from sqlite_master where type = 'index' and name = 'ledger_account_time'`.execute(db())
          ).rows[0]?.d;
    expect(def).toMatch(/account_id"?\)? is not null/i);
  });

  it('serves a read by account', async () => {
    const q = sql`select sum(amount) from ledger where account_id = ${'acc_1'} and created_at >= ${0}`;
    if (testDialect() === 'postgres') {
      const plan = await db()
        .transaction()
        .execute(async (trx) => {
          // The table is empty: without this the planner would rightly prefer a scan.
          await sql`set local enable_seqscan = off`.execute(trx);
          return (await sql<{ 'QUERY PLAN': string }>`explain ${q}`.execute(trx)).rows
            .map((r) => r['QUERY PLAN'])
            .join('\n');
        });
      expect(plan).toContain('ledger_account_time');
    } else {
      const plan = (await sql<{ detail: string }>`explain query plan ${q}`.execute(db())).rows
        .map((r) => r.detail)
        .join('\n');
      expect(plan).toContain('ledger_account_time');
    }
  });
});
