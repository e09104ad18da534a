import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// The ledger's account index holds only the charges of tokens in an account. Every charge is written with every
// index on the ledger; a token of no account (the common case) no longer pays one entry per charge in it. Reads by
// account (`account_id = ?`) imply `account_id IS NOT NULL`, so both stores still use it for them.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.dropIndex('ledger_account_time').ifExists().execute();
  await db.schema
    .createIndex('ledger_account_time')
    .on('ledger')
    .columns(['account_id', 'created_at'])
    .where(sql.ref('account_id'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.dropIndex('ledger_account_time').ifExists().execute();
  await db.schema.createIndex('ledger_account_time').on('ledger').columns(['account_id', 'created_at']).execute();
}
