// What the metrics read from the store at scrape time (never on the request path): open tasks by state with the
// oldest due poll, and the holds still open. Both are database-wide: every instance reads the same figures.
// The reads follow the `tasks_due` (state, next_poll_at) and `holds_state_time` (state, created_at) indexes.
import { sql, type Kysely } from 'kysely';
import { OPEN_STATES, type TaskState } from '../../tasks/vocabulary.ts';
import type { Database } from '../schema.ts';

export interface OpenTasks {
  /** Open tasks per state; every open state is present (0 when none). */
  byState: Map<TaskState, number>;
  /** The earliest `next_poll_at` among open tasks (ms), null when none is open. */
  earliestDue: number | null;
}

export interface OpenHolds {
  /** `reservation`: a call answered at once, held until its charge; `task`: an async task's estimate. */
  kind: 'reservation' | 'task';
  count: number;
  /** Micro-units held. */
  amount: number;
}

/** Tasks waiting in the gateway for a parallel-task slot, per queue (upstream account and model version). */
export interface WaitingQueue {
  queue: string;
  count: number;
  /** created_at of the queue's oldest waiting task (ms). */
  oldest: number;
}

export class GaugesRepo {
  /** `reservationPrefix`: how a quota reservation's hold key begins (metering/holds.ts), the rest being tasks'. */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly reservationPrefix: string,
  ) {}

  async openTasks(): Promise<OpenTasks> {
    const rows = await this.db
      .selectFrom('tasks')
      .select((eb) => [
        'state',
        eb.fn.countAll<number | string>().as('n'),
        eb.fn.min<number | string | null>('next_poll_at').as('due'),
      ])
      .where('state', 'in', [...OPEN_STATES])
      .groupBy('state')
      .execute();
    const byState = new Map<TaskState, number>(OPEN_STATES.map((s) => [s, 0]));
    let earliestDue: number | null = null;
    for (const r of rows) {
      byState.set(r.state as TaskState, Number(r.n));
      if (r.due !== null && (earliestDue === null || Number(r.due) < earliestDue)) earliestDue = Number(r.due);
    }
    return { byState, earliestDue };
  }

  async openHolds(): Promise<OpenHolds[]> {
    // A literal, not a parameter: PostgreSQL groups by the select's expression only when both are the same text.
    const kind = sql<string>`case when hold_key like ${sql.lit(`${this.reservationPrefix}%`)} then 'reservation' else 'task' end`;
    const rows = await this.db
      .selectFrom('holds')
      .select((eb) => [
        kind.as('kind'),
        eb.fn.countAll<number | string>().as('n'),
        eb.fn.coalesce(eb.fn.sum<number | string>('amount'), sql<number>`0`).as('amount'),
      ])
      .where('state', '=', 'held')
      .groupBy(kind)
      .execute();
    const out: OpenHolds[] = [
      { kind: 'reservation', count: 0, amount: 0 },
      { kind: 'task', count: 0, amount: 0 },
    ];
    for (const r of rows) {
      const o = out.find((h) => h.kind === r.kind);
      if (o) {
        o.count = Number(r.n);
        o.amount = Number(r.amount);
      }
    }
    return out;
  }

  /** Waiting tasks per queue: read from the queue index (slot_queue, state, …), which holds only tasks with a queue. */
  async waitingTasks(): Promise<WaitingQueue[]> {
    const rows = await this.db
      .selectFrom('tasks')
      .select((eb) => [
        'slot_queue',
        eb.fn.countAll<number | string>().as('n'),
        eb.fn.min<number | string>('created_at').as('oldest'),
      ])
      .where('slot_queue', 'is not', null)
      .where('state', '=', 'waiting')
      .groupBy('slot_queue')
      .execute();
    return rows.map((r) => ({ queue: r.slot_queue ?? '', count: Number(r.n), oldest: Number(r.oldest) }));
  }
}
