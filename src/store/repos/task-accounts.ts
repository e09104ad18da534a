// Reads of the open tasks of an upstream account, for the list rounds (tasks/list-rounds.ts): how many a channel has
// and since when, and our rows for the upstream ids a task list showed changed.
import { type CompiledQuery, type Kysely, sql } from 'kysely';
import type { TaskRecord } from '../../tasks/vocabulary.ts';
import type { Database } from '../schema.ts';
import { POLL_COLUMNS, toPollRecord, type TaskRow } from './task-rows.ts';

export interface OpenOnChannel {
  channelId: string;
  count: number;
  /** Creation time of the oldest open task (ms). */
  oldest: number;
}

type OpenRow = { channel_id: string; n: number | string; oldest: number | string };

/**
 * Open tasks (with an upstream id) of one kind, per channel: read from the index alone (tasks_open_listed, migration
 * 021).
 */
export function openTasksByChannel(db: Kysely<Database>, kind: string): Promise<OpenOnChannel[]> {
  return new OpenTasksByChannel(db).read(kind);
}

/** openTasksByChannel with its statement compiled once per kind: the list rounds read it every second. */
export class OpenTasksByChannel {
  private readonly compiled = new Map<string, CompiledQuery<OpenRow>>();

  constructor(private readonly db: Kysely<Database>) {}

  async read(kind: string): Promise<OpenOnChannel[]> {
    let q = this.compiled.get(kind);
    if (!q) {
      q = sql<OpenRow>`
        SELECT channel_id, count(*) AS n, min(created_at) AS oldest FROM tasks
        WHERE state IN ('queued', 'in_progress') AND kind = ${kind} AND upstream_task_id IS NOT NULL
        GROUP BY channel_id`.compile(this.db);
      this.compiled.set(kind, q);
    }
    const r = await this.db.executeQuery(q);
    return r.rows.map((x) => ({ channelId: x.channel_id, count: Number(x.n), oldest: Number(x.oldest) }));
  }
}

const CHUNK = 500;

/** Our open tasks of one kind on these channels with these upstream ids. */
export async function openTasksByUpstreamIds(
  db: Kysely<Database>,
  kind: string,
  channelIds: readonly string[],
  upstreamIds: readonly string[],
): Promise<TaskRecord[]> {
  const out: TaskRecord[] = [];
  for (let i = 0; i < upstreamIds.length; i += CHUNK) {
    const ids = upstreamIds.slice(i, i + CHUNK);
    const r = await sql<Omit<TaskRow, 'request'>>`
      SELECT ${POLL_COLUMNS} FROM tasks
      WHERE upstream_task_id IN (${sql.join(ids)}) AND kind = ${kind} AND channel_id IN (${sql.join(channelIds)})
        AND state IN ('queued', 'in_progress')`.execute(db);
    out.push(...r.rows.map(toPollRecord));
  }
  return out;
}
