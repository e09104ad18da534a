// The poller's claim of due tasks (TasksRepo.claimDue): one statement that leases the due head and schedules each
// task's next poll, per dialect.
import { type CompiledQuery, type Kysely, sql, type RawBuilder } from 'kysely';
import { OPEN_STATES, STICKY_STATES, type TaskState } from '../../tasks/vocabulary.ts';
import type { Dialect } from '../dialect.ts';
import type { Database } from '../schema.ts';
import { POLL_COLUMNS, type TaskRow } from './task-rows.ts';

/**
 * The open states as the due index's predicate lists them (migration 017): a claim reads that index only when the same.
 */
const stateList = (states: readonly TaskState[]) => sql.raw(`(${states.map((s) => `'${s}'`).join(', ')})`);
export const OPEN_SQL = stateList(OPEN_STATES);
const STICKY_SQL = stateList(STICKY_STATES);

/** Back-off of the poll schedule, as the claim statement computes it (`attempts` = the attempt being made). */
export interface PollSchedule {
  baseMs: number;
  maxMs: number;
  /**
   * Channels whose account's task list is read in rounds (tasks/list-rounds.ts), and how long their queued and running
   * tasks wait for a poll of their own: the list shows them at every round, so their own poll is only a fallback
   * for when the rounds stop.
   */
  listed?: { kinds: ReadonlyArray<{ kind: string; channels: readonly string[] }>; ms: number };
}

/** What a claim's run binds: the rest of its statement is fixed by its shape (dialect, limit, schedule). */
export interface ClaimValues {
  owner: string;
  leaseMs: number;
  now: number;
}

/** A parameter whose value is taken from the run's ClaimValues when the statement is run. */
class Slot {
  constructor(readonly of: (v: ClaimValues) => unknown) {}
}
const OWNER = new Slot((v) => v.owner);
const NOW = new Slot((v) => v.now);

/**
 * The claim's statements, compiled once per shape: a poller round then binds its values into the compiled text
 * instead of building the query again (the poller runs every tick, with nothing due most of the time).
 */
export class ClaimStatements {
  private readonly compiled = new Map<string, CompiledQuery<TaskRow>>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  /** The compiled claim for this shape, with this run's values bound. */
  bind(limit: number, schedule: PollSchedule, v: ClaimValues): CompiledQuery<TaskRow> {
    const key = `${limit} ${schedule.baseMs} ${schedule.maxMs} ${schedule.listed ? JSON.stringify(schedule.listed) : ''}`;
    let c = this.compiled.get(key);
    if (!c) {
      // The listed channels change now and then: old shapes are dropped rather than kept for ever.
      if (this.compiled.size >= 32) this.compiled.clear();
      c = claimShape(this.dialect, limit, schedule).compile(this.db);
      this.compiled.set(key, c);
    }
    return { ...c, parameters: c.parameters.map((p) => (p instanceof Slot ? p.of(v) : p)) };
  }
}

/**
 * Lease up to `limit` due open tasks to `owner` and schedule their next polls: back-off by attempt, less a jitter of
 * 1 to 10 % (the longest back-off is never exceeded); a listed channel's queued or running task, its fallback delay
 * less the same jitter. A queued or running task's lease outlasts its next poll by `leaseMs` (sticky); another task's
 * lasts `leaseMs`. PostgreSQL: `FOR UPDATE SKIP LOCKED`, so instances claim disjoint sets.
 */
function claimShape(dialect: Dialect, limit: number, schedule: PollSchedule): RawBuilder<TaskRow> {
  const owner = OWNER;
  const now = NOW;
  const until = new Slot((v) => v.now + v.leaseMs);
  const { baseMs, maxMs } = schedule;
  const pg = dialect === 'postgres';
  const big = (v: unknown) => (pg ? sql`CAST(${v} AS bigint)` : sql`${v}`);
  const jitter = pg ? sql`(0.9 + random() * 0.09)` : sql`(0.9 + abs(random() % 901) / 10000.0)`;
  const backoff = pg
    ? sql`${now} + CAST(LEAST(${big(maxMs)}, ${big(baseMs)} << LEAST(poll_attempts + 1, 20)) * ${jitter} AS bigint)`
    : sql`${now} + CAST(min(${maxMs}, ${baseMs} << min(poll_attempts + 1, 20)) * ${jitter} AS INTEGER)`;
  let nextPoll = backoff;
  let sticky = big(new Slot((v) => v.now + v.leaseMs + maxMs));
  const listed = schedule.listed;
  const ofKinds = (listed?.kinds ?? [])
    .filter((k) => k.channels.length > 0)
    .map((k) => sql`(kind = ${k.kind} AND channel_id IN (${sql.join(k.channels)}))`);
  if (listed && ofKinds.length > 0) {
    const isListed = sql`state IN ${STICKY_SQL} AND (${sql.join(ofKinds, sql` OR `)})`;
    nextPoll = sql`CASE WHEN ${isListed} THEN ${now} + CAST(${big(listed.ms)} * ${jitter} AS ${sql.raw(pg ? 'bigint' : 'INTEGER')}) ELSE ${backoff} END`;
    sticky = sql`CASE WHEN ${isListed} THEN ${big(new Slot((v) => v.now + v.leaseMs + listed.ms))} ELSE ${sticky} END`;
  }
  return sql<TaskRow>`
    UPDATE tasks SET lease_owner = ${owner}, lease_until = CASE WHEN state IN ${STICKY_SQL} THEN ${sticky} ELSE ${big(until)} END,
      checked_at = ${now}, poll_attempts = poll_attempts + 1, next_poll_at = ${nextPoll}
    WHERE id IN (
      SELECT id FROM tasks
      WHERE state IN ${OPEN_SQL} AND next_poll_at <= ${now}
        AND (lease_until IS NULL OR lease_until < ${now} OR lease_owner = ${owner})
      ORDER BY next_poll_at
      LIMIT ${sql.lit(limit)}${pg ? sql` FOR UPDATE SKIP LOCKED` : sql``}
    )
    RETURNING ${POLL_COLUMNS}`;
}
