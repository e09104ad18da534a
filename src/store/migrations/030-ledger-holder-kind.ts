import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// A top-up names its holder's kind: an account's credit line keeps the account id in token_id (its bills read it
// there), and holder_kind says 'account'; a token's says 'token'. Charges leave it null: their holder is the token.
// Account top-ups written before are told by their account_id, which an account's credit line sets to its own id.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('ledger').addColumn('holder_kind', 'varchar(16)').execute();
  await sql`update ledger set holder_kind = case when account_id = token_id then 'account' else 'token' end where kind = 'credit'`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('ledger').dropColumn('holder_kind').execute();
}
