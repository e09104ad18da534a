import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// The cap on waiting tasks counts each token's queue tasks the upstream has not taken yet (tasks/slot-caps.ts):
// waiting, or being submitted with their creation still kept (a first try, or a waiting task's retried creation).
// An index of their own, as the waiting ones had (025); its condition is the count's, term for term.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createIndex('tasks_unsent_token')
    .on('tasks')
    .columns(['token_id'])
    .where(sql<boolean>`state IN ('waiting', 'submitting') AND submit_body IS NOT NULL`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('tasks_unsent_token').ifExists().execute();
}
