import { openStore } from '/work/wt/taskscale/src/store/store.ts';
import { sql } from 'kysely';
const s = await openStore('sqlite::memory:');
const q = async (text: string) => console.log((await sql.raw(`EXPLAIN QUERY PLAN ${text}`).execute(s.db)).rows.map((r: any) => r.detail).join(' | '));
await q(`UPDATE tasks SET lease_owner = 'x', next_poll_at = 5 WHERE id IN (SELECT id FROM tasks WHERE state IN ('submitting', 'queued', 'in_progress') AND next_poll_at <= 5 AND (lease_until IS NULL OR lease_until < 5) ORDER BY next_poll_at LIMIT 200) RETURNING id`);
await q(`SELECT min(next_poll_at) FROM tasks WHERE state IN ('submitting', 'queued', 'in_progress')`);
const cb = s.db.selectFrom('tasks').selectAll().where('family', '=', 'a').where('state', 'in', ['succeeded', 'failed', 'cancelled']).where('callback_url', 'is not', null).where('finished_at', '>', 5)
  .where(({ not, exists, selectFrom }) => not(exists(selectFrom('callbacks').select('callbacks.id').whereRef('callbacks.task_id', '=', 'tasks.id')))).limit(200).compile();
console.log((await s.db.executeQuery({ ...cb, sql: 'EXPLAIN QUERY PLAN ' + cb.sql } as any)).rows.map((r: any) => r.detail).join(' | '));
await s.close();
