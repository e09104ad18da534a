import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// Account names are unique (the operator picks an account by its name). Accounts that already share a name keep
// it for the oldest (created_at, then id); each later one is renamed `<name> (<id>)`, deterministic and still
// recognisable, before the unique index is made.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  const rows = (
    await sql<{ id: string; name: string }>`select id, name from accounts order by name, created_at, id`.execute(db)
  ).rows;
  const seen = new Set<string>();
  const taken = new Set(rows.map((r) => r.name));
  for (const r of rows) {
    if (!seen.has(r.name)) {
      seen.add(r.name);
      continue;
    }
    let name = `${r.name} (${r.id})`;
    for (let i = 2; taken.has(name); i++) name = `${r.name} (${r.id} ${i})`;
    taken.add(name);
    await sql`update accounts set name = ${name} where id = ${r.id}`.execute(db);
  }
  await db.schema.createIndex('accounts_name').on('accounts').column('name').unique().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('accounts_name').ifExists().execute();
}
