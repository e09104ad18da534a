// What a /v1/videos client sees of the tasks table: its own videos that it has not deleted, paged by keyset in
// either order (OpenAI's `order`), and the delete that hides one. The operator's views read the table whole.
import { sql, type Kysely } from 'kysely';
import type { TaskRecord } from '../../tasks/vocabulary.ts';
import type { Keyset } from '../keyset.ts';
import type { Database } from '../schema.ts';
import { storedFamily, toTaskRecord } from './task-rows.ts';

export interface VideoListQuery {
  tokenId: string;
  kind: string;
  limit: number;
  order: 'asc' | 'desc';
  /** Only videos after this one in `order`. */
  after?: Keyset | undefined;
}

/** The token's visible videos (not being submitted, not deleted), by (created_at, id) in `order`. */
export async function listVisibleVideos(db: Kysely<Database>, q: VideoListQuery): Promise<TaskRecord[]> {
  let s = db
    .selectFrom('tasks')
    .selectAll()
    .where('token_id', '=', q.tokenId)
    .where('family', '=', storedFamily('v1'))
    .where('kind', '=', q.kind)
    .where('state', '!=', 'submitting')
    .where('deleted_at', 'is', null);
  const a = q.after;
  if (a) {
    s =
      q.order === 'desc'
        ? s.where(sql<boolean>`(created_at < ${a.createdAt} OR (created_at = ${a.createdAt} AND id < ${a.id}))`)
        : s.where(sql<boolean>`(created_at > ${a.createdAt} OR (created_at = ${a.createdAt} AND id > ${a.id}))`);
  }
  const rows = await s.orderBy('created_at', q.order).orderBy('id', q.order).limit(q.limit).execute();
  return rows.map(toTaskRecord);
}

/** Hide one of the token's videos from it. False when there is no such visible video (deleted already). */
export async function hideVideo(db: Kysely<Database>, id: string, tokenId: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable('tasks')
    .set({ deleted_at: now })
    .where('id', '=', id)
    .where('token_id', '=', tokenId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
