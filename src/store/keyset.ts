// The WHERE and ORDER BY shared by the store's newest-first lists (tasks, request log, ledger): written once, so
// every list filters by token, model and time the same way and pages by the same keyset.
import { sql, type Expression, type SqlBool } from 'kysely';
import type { Database } from './schema.ts';

type Scalar = string | number;

/** The tables listed newest first: each has `token_id`, `model` and `created_at` (ms). */
type Listed = 'tasks' | 'request_log' | 'ledger';

/** Who, what and when: the filter every list and bill shares. */
export interface TimeFilter {
  tokenId?: string | undefined;
  model?: string | undefined;
  /** Inclusive lower bound, ms since epoch. */
  since?: number | undefined;
  /** Exclusive upper bound, ms since epoch. */
  until?: number | undefined;
}

/**
 * A row's place in a newest-first list: its creation time, then its unique id as the tie-break, so rows created in
 * the same millisecond are neither skipped nor repeated from one page to the next.
 */
export interface Keyset {
  createdAt: number;
  id: string;
}

export interface ListWhere<T extends Listed> extends TimeFilter {
  /** `column = value` for each value given (undefined: no condition). */
  equal?: { readonly [C in keyof Database[T] & string]?: Scalar | undefined };
  /** Only rows after this one in the order of `newestFirst`. */
  after?: Keyset | undefined;
}

/** The unique id column that breaks ties between rows of one millisecond. */
const ID_COLUMN: { readonly [T in Listed]: keyof Database[T] & string } = {
  tasks: 'id',
  request_log: 'request_id',
  ledger: 'id',
};

/** The conditions of `w` on `table`, AND-ed (null when there are none). */
export function listCondition<T extends Listed>(table: T, w: ListWhere<T>): Expression<SqlBool> | null {
  const parts = [];
  const equal: Record<string, Scalar | undefined> = { token_id: w.tokenId, model: w.model, ...w.equal };
  for (const [col, v] of Object.entries(equal)) if (v !== undefined) parts.push(sql`${sql.ref(col)} = ${v}`);
  if (w.since !== undefined) parts.push(sql`created_at >= ${w.since}`);
  if (w.until !== undefined) parts.push(sql`created_at < ${w.until}`);
  const a = w.after;
  if (a !== undefined) {
    const id = sql.ref(ID_COLUMN[table]);
    parts.push(sql`(created_at < ${a.createdAt} OR (created_at = ${a.createdAt} AND ${id} < ${a.id}))`);
  }
  return parts.length === 0 ? null : sql<SqlBool>`${sql.join(parts, sql` AND `)}`;
}

interface Filterable<Q> {
  where(e: Expression<SqlBool>): Q;
}

/** `q` with the conditions of `w` on `table`. */
export function whereList<T extends Listed, Q extends Filterable<Q>>(q: Q, table: T, w: ListWhere<T>): Q {
  const c = listCondition(table, w);
  return c === null ? q : q.where(c);
}

interface Orderable<Q> {
  orderBy(e: Expression<unknown>, dir: 'desc'): Q;
}

/** Newest first, ties broken by the unique id: the order `after` pages through. */
export function newestFirst<T extends Listed, Q extends Orderable<Q>>(q: Q, table: T): Q {
  return q.orderBy(sql.ref('created_at'), 'desc').orderBy(sql.ref(ID_COLUMN[table]), 'desc');
}
