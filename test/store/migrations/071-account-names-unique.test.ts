// Account names are unique (migration 071): accounts that already share a name keep it for the oldest, the later
// ones are renamed `<name> (<id>)`, and a new duplicate is refused by the index (the admin API answers 409).
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import * as m071 from '../../../src/store/migrations/071-account-names-unique.ts';
import { freshStore, testDialect, type FreshStore } from '../../support/store.ts';

let fresh: FreshStore | undefined;
afterEach(async () => {
  await fresh?.cleanup();
  fresh = undefined;
});

const account = (db: Kysely<unknown>, id: string, name: string, createdAt: number) =>
  sql`insert into accounts (id, name, quota, budgets, price_group, time_zone, expires_at, revoked_at, created_at, updated_at)
    values (${id}, ${name}, null, null, null, null, null, null, ${createdAt}, ${createdAt})`.execute(db);

describe('unique account names (migration 071)', () => {
  it('existing duplicates: the oldest keeps the name, the others get "<name> (<id>)"; then duplicates are refused', async () => {
    fresh = await freshStore();
    const db = fresh.store.db as unknown as Kysely<unknown>;
    // A store from before 071.
    await m071.down(db);
    await account(db, 'acc_b', 'Acme', 2);
    await account(db, 'acc_a', 'Acme', 1);
    await account(db, 'acc_c', 'Acme', 2);
    await account(db, 'acc_d', 'Other', 1);
    await m071.up(db, testDialect());
    const rows = (await sql<{ id: string; name: string }>`select id, name from accounts order by id`.execute(db)).rows;
    expect(rows).toEqual([
      { id: 'acc_a', name: 'Acme' },
      { id: 'acc_b', name: 'Acme (acc_b)' },
      { id: 'acc_c', name: 'Acme (acc_c)' },
      { id: 'acc_d', name: 'Other' },
    ]);
    await expect(account(db, 'acc_e', 'Other', 3)).rejects.toThrow();
  });
});
