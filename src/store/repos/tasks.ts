// The tasks table. Every state change is a compare-and-set (`WHERE id = ? AND state = ?`) so two
// pollers (or a poller and an on-demand GET) can never both move a task; claims use leases.
import { sql, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { Usage } from '../../metering/types.ts';
import type { TaskError, TaskFamily, TaskIdentity, TaskRecord, TaskState } from '../../tasks/types.ts';
import { OPEN_STATES } from '../../tasks/types.ts';
import type { Dialect } from '../dialect.ts';
import { newestFirst, whereList, type Keyset } from '../keyset.ts';
import { parseJson } from '../json.ts';
import type { Database, TasksTable } from '../schema.ts';

type TaskRow = Selectable<TasksTable>;

/** The stored `tasks.family` values: 'a' (/vidx/v1) and 'b' (/v1), kept from the first schema. */
const STORED_FAMILY: Record<TaskFamily, string> = { vidx: 'a', v1: 'b' };
export const storedFamily = (f: TaskFamily): string => STORED_FAMILY[f];
const familyOfStored = (s: string): TaskFamily => (s === 'a' ? 'vidx' : 'v1');
const num = (v: number | null): number | null => (v === null ? null : Number(v));

export function toTaskRecord(r: TaskRow): TaskRecord {
  return {
    id: r.id,
    family: familyOfStored(r.family),
    kind: r.kind,
    tokenId: r.token_id,
    model: r.model,
    billingModel: r.billing_model,
    upstreamModel: r.upstream_model,
    channelId: r.channel_id,
    upstreamTaskId: r.upstream_task_id,
    state: r.state as TaskState,
    upstreamStatus: r.upstream_status,
    progress: r.progress,
    request: parseJson(r.request),
    result: parseJson(r.result),
    usage: parseJson<Usage>(r.usage),
    error: parseJson<TaskError>(r.error),
    externalTaskId: r.external_task_id,
    callbackUrl: r.callback_url,
    sessionId: r.session_id,
    requestId: r.request_id,
    upstreamRequestId: r.upstream_request_id,
    tier: r.tier,
    holdAmount: Number(r.hold_amount),
    nextPollAt: Number(r.next_poll_at),
    pollAttempts: Number(r.poll_attempts),
    leaseOwner: r.lease_owner,
    leaseUntil: num(r.lease_until),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    finishedAt: num(r.finished_at),
    checkedAt: num(r.checked_at ?? null),
  };
}

/** The columns a poll needs: not the request snapshot (the largest), which no driver reads. */
const POLL_COLUMNS = sql.raw(
  'id, family, kind, token_id, model, billing_model, upstream_model, channel_id, upstream_task_id, state, upstream_status, progress, ' +
    'result, usage, error, external_task_id, callback_url, session_id, request_id, upstream_request_id, tier, hold_amount, next_poll_at, ' +
    'poll_attempts, lease_owner, lease_until, created_at, updated_at, finished_at, checked_at',
);

/**
 * A claimed task as the poller sees it: no request snapshot, and the JSON columns parsed only when read (an
 * open task's `usage` is the hold estimate, needed only when the task succeeds without reported usage).
 */
function toPollRecord(r: Omit<TaskRow, 'request'>): TaskRecord {
  const t = toTaskRecord({ ...r, request: 'null', usage: null, result: null, error: null } as TaskRow);
  let usage: Usage | null | undefined;
  let result: unknown;
  let error: TaskError | null | undefined;
  Object.defineProperties(t, {
    usage: { enumerable: true, configurable: true, get: () => (usage === undefined ? (usage = parseJson<Usage>(r.usage)) : usage), set: (v: Usage | null) => (usage = v) },
    result: { enumerable: true, configurable: true, get: () => (result === undefined ? (result = parseJson(r.result)) : result), set: (v: unknown) => (result = v) },
    error: { enumerable: true, configurable: true, get: () => (error === undefined ? (error = parseJson<TaskError>(r.error)) : error), set: (v: TaskError | null) => (error = v) },
  });
  return t;
}

/** Back-off of the poll schedule, as the claim statement computes it (`attempts` = the attempt being made). */
export interface PollSchedule {
  baseMs: number;
  maxMs: number;
}

export interface NewTaskRow extends TaskIdentity {
  id: string;
  channelId: string;
  estimate: Usage;
  externalTaskId: string | null;
  callbackUrl: string | null;
  sessionId: string | null;
  /** The submit deadline: a `submitting` row still there after it is failed by the poller. */
  nextPollAt: number;
  leaseOwner: string;
  leaseUntil: number;
}

/** Fields a transition may set. */
export interface TaskPatch {
  state?: TaskState;
  upstreamTaskId?: string | null;
  upstreamStatus?: string | null;
  progress?: number | null;
  result?: unknown;
  usage?: Usage | null;
  error?: TaskError | null;
  upstreamRequestId?: string | null;
  holdAmount?: number;
  channelId?: string;
  nextPollAt?: number;
  pollAttempts?: number;
  leaseOwner?: string | null;
  leaseUntil?: number | null;
  finishedAt?: number | null;
}

function patchRow(p: TaskPatch, now: number): Updateable<TasksTable> {
  const o: Record<string, unknown> = { updated_at: now };
  if (p.state !== undefined) o.state = p.state;
  if (p.upstreamTaskId !== undefined) o.upstream_task_id = p.upstreamTaskId;
  if (p.upstreamStatus !== undefined) o.upstream_status = p.upstreamStatus;
  if (p.progress !== undefined) o.progress = p.progress;
  if (p.result !== undefined) o.result = p.result === null ? null : JSON.stringify(p.result);
  if (p.usage !== undefined) o.usage = p.usage === null ? null : JSON.stringify(p.usage);
  if (p.error !== undefined) o.error = p.error === null ? null : JSON.stringify(p.error);
  if (p.upstreamRequestId !== undefined) o.upstream_request_id = p.upstreamRequestId;
  if (p.holdAmount !== undefined) o.hold_amount = p.holdAmount;
  if (p.channelId !== undefined) o.channel_id = p.channelId;
  if (p.nextPollAt !== undefined) o.next_poll_at = p.nextPollAt;
  if (p.pollAttempts !== undefined) o.poll_attempts = p.pollAttempts;
  if (p.leaseOwner !== undefined) o.lease_owner = p.leaseOwner;
  if (p.leaseUntil !== undefined) o.lease_until = p.leaseUntil;
  if (p.finishedAt !== undefined) o.finished_at = p.finishedAt;
  return o as Updateable<TasksTable>;
}

export interface ListTasksFilter {
  family?: TaskFamily;
  kind?: string;
  limit?: number;
  /** Only tasks after this one in the newest-first order (paging by cursor). */
  after?: Keyset;
  /** Rows to skip (paging by page number). */
  offset?: number;
}

/** The operator's list of every token's tasks (GET /admin/tasks). */
export interface AdminTasksFilter {
  state?: TaskState | undefined;
  kind?: string | undefined;
  tokenId?: string | undefined;
  model?: string | undefined;
  /** created_at bounds: inclusive, exclusive. */
  since?: number | undefined;
  until?: number | undefined;
  /** Only tasks after this one in the newest-first order (created_at, then id). */
  after?: Keyset | undefined;
  limit: number;
}

export class TasksRepo {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  async insert(t: NewTaskRow, now = Date.now()): Promise<TaskRecord> {
    const row = {
      id: t.id,
      family: storedFamily(t.family),
      kind: t.kind,
      token_id: t.tokenId,
      model: t.model,
      billing_model: t.billingModel,
      upstream_model: t.upstreamModel,
      channel_id: t.channelId,
      upstream_task_id: null,
      state: 'submitting',
      upstream_status: null,
      progress: null,
      request: JSON.stringify(t.request ?? null),
      result: null,
      usage: JSON.stringify(t.estimate),
      error: null,
      external_task_id: t.externalTaskId,
      callback_url: t.callbackUrl,
      session_id: t.sessionId,
      request_id: t.requestId,
      upstream_request_id: null,
      tier: t.tier,
      hold_amount: 0,
      next_poll_at: t.nextPollAt,
      poll_attempts: 0,
      lease_owner: t.leaseOwner,
      lease_until: t.leaseUntil,
      created_at: now,
      updated_at: now,
      finished_at: null,
      checked_at: null,
    };
    await this.db.insertInto('tasks').values(row).execute();
    return toTaskRecord(row);
  }

  async get(id: string): Promise<TaskRecord | null> {
    const r = await this.db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toTaskRecord(r) : null;
  }

  /** The task if this token owns it; null otherwise (callers answer 404 either way). */
  async getFor(id: string, tokenId: string): Promise<TaskRecord | null> {
    const r = await this.db.selectFrom('tasks').selectAll().where('id', '=', id).where('token_id', '=', tokenId).executeTakeFirst();
    return r ? toTaskRecord(r) : null;
  }

  async findByExternal(tokenId: string, kind: string, externalTaskId: string): Promise<TaskRecord | null> {
    const r = await this.db
      .selectFrom('tasks')
      .selectAll()
      .where('token_id', '=', tokenId)
      .where('kind', '=', kind)
      .where('external_task_id', '=', externalTaskId)
      .executeTakeFirst();
    return r ? toTaskRecord(r) : null;
  }

  /** One token's tasks (not those still being submitted), newest first. */
  async listFor(tokenId: string, f: ListTasksFilter = {}): Promise<TaskRecord[]> {
    let q = this.db.selectFrom('tasks').selectAll().where('state', '!=', 'submitting');
    q = whereList(q, 'tasks', { tokenId, equal: { family: f.family && storedFamily(f.family), kind: f.kind }, after: f.after });
    q = newestFirst(q, 'tasks').limit(f.limit ?? 20);
    if (f.offset) q = q.offset(f.offset);
    return (await q.execute()).map(toTaskRecord);
  }

  /** Every token's tasks, newest first by (created_at, id): a cursor never skips tasks created in the same ms. */
  async listAdmin(f: AdminTasksFilter): Promise<TaskRecord[]> {
    const q = whereList(this.db.selectFrom('tasks').selectAll(), 'tasks', { ...f, equal: { state: f.state, kind: f.kind } });
    return (await newestFirst(q, 'tasks').limit(f.limit).execute()).map(toTaskRecord);
  }

  /** Compare-and-set: apply the patch only while the task is still in `from`. True when it applied. */
  async transition(id: string, from: TaskState, patch: TaskPatch, now = Date.now()): Promise<boolean> {
    const r = await this.db.updateTable('tasks').set(patchRow(patch, now)).where('id', '=', id).where('state', '=', from).executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Delete the row (only while it is in `onlyIn`, when given). True when a row was deleted. */
  async delete(id: string, onlyIn?: TaskState): Promise<boolean> {
    let q = this.db.deleteFrom('tasks').where('id', '=', id);
    if (onlyIn) q = q.where('state', '=', onlyIn);
    const r = await q.executeTakeFirst();
    return Number(r.numDeletedRows) === 1;
  }

  /** Take (or renew) the lease on one open task (an on-demand poll). True when this owner now holds it. */
  async lease(id: string, owner: string, leaseMs: number, now = Date.now()): Promise<boolean> {
    const r = await this.db
      .updateTable('tasks')
      .set({ lease_owner: owner, lease_until: now + leaseMs, checked_at: now })
      .where('id', '=', id)
      .where('state', 'in', [...OPEN_STATES])
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now), eb('lease_owner', '=', owner)]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async unlease(id: string, owner: string): Promise<void> {
    await this.db.updateTable('tasks').set({ lease_owner: null, lease_until: null }).where('id', '=', id).where('lease_owner', '=', owner).execute();
  }

  /** Drop this owner's leases on these tasks: one statement for a whole poller round. */
  async unleaseMany(ids: readonly string[], owner: string): Promise<void> {
    for (let i = 0; i < ids.length; i += 500) {
      await this.db.updateTable('tasks').set({ lease_owner: null, lease_until: null }).where('id', 'in', ids.slice(i, i + 500)).where('lease_owner', '=', owner).execute();
    }
  }

  /** Drop every lease this owner holds (graceful shutdown: another instance may take over at once). */
  async unleaseAll(owner: string): Promise<void> {
    await this.db.updateTable('tasks').set({ lease_owner: null, lease_until: null }).where('lease_owner', '=', owner).execute();
  }

  /** Make an open task due now (an upstream callback said it changed): the next poller round picks it up. */
  async markDue(id: string, now = Date.now()): Promise<boolean> {
    const r = await this.db.updateTable('tasks').set({ next_poll_at: now }).where('id', '=', id).where('state', 'in', [...OPEN_STATES]).executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** The earliest next poll time among open tasks (null when none is open): the poller sleeps until then. */
  async nextDueAt(): Promise<number | null> {
    const r = await sql<{ t: number | string | null }>`SELECT min(next_poll_at) AS t FROM tasks WHERE state IN ('submitting', 'queued', 'in_progress')`.execute(this.db);
    const t = r.rows[0]?.t;
    return t === null || t === undefined ? null : Number(t);
  }

  /**
   * Claim up to `limit` due open tasks for `owner`, in one statement that also schedules each task's next poll
   * (back-off by attempt, less up to 10 % of jitter: the longest back-off is never exceeded) and records the check: a poll that then finds nothing changed needs no
   * write of its own. The due head is read in next_poll_at order from the partial index of open tasks.
   * PostgreSQL: `FOR UPDATE SKIP LOCKED`, so instances claim disjoint sets without waiting on each other;
   * SQLite has a single writer, and the statement is atomic.
   */
  async claimDue(owner: string, leaseMs: number, limit: number, schedule: PollSchedule, now = Date.now()): Promise<TaskRecord[]> {
    const until = now + leaseMs;
    const { baseMs, maxMs } = schedule;
    const q =
      this.dialect === 'postgres'
        ? sql<TaskRow>`
        UPDATE tasks SET lease_owner = ${owner}, lease_until = ${until}, checked_at = ${now}, poll_attempts = poll_attempts + 1,
          next_poll_at = ${now} + CAST(LEAST(CAST(${maxMs} AS bigint), CAST(${baseMs} AS bigint) << LEAST(poll_attempts + 1, 20)) * (0.9 + random() * 0.1) AS bigint)
        WHERE id IN (
          SELECT id FROM tasks
          WHERE state IN ('submitting', 'queued', 'in_progress') AND next_poll_at <= ${now}
            AND (lease_until IS NULL OR lease_until < ${now})
          ORDER BY next_poll_at
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        )
        RETURNING ${POLL_COLUMNS}`
        : sql<TaskRow>`
        UPDATE tasks SET lease_owner = ${owner}, lease_until = ${until}, checked_at = ${now}, poll_attempts = poll_attempts + 1,
          next_poll_at = ${now} + CAST(min(${maxMs}, ${baseMs} << min(poll_attempts + 1, 20)) * (0.9 + abs(random() % 1001) / 10000.0) AS INTEGER)
        WHERE id IN (
          SELECT id FROM tasks
          WHERE state IN ('submitting', 'queued', 'in_progress') AND next_poll_at <= ${now}
            AND (lease_until IS NULL OR lease_until < ${now})
          ORDER BY next_poll_at
          LIMIT ${limit}
        )
        RETURNING ${POLL_COLUMNS}`;
    return (await q.execute(this.db)).rows.map(toPollRecord);
  }
}
