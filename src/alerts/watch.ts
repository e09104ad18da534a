// The alerts found by looking rather than told as they happen: spending past a threshold of its limit, and the task
// failure rate over a window. Each check is cheap (an indexed read) and runs on every instance; the marks in the
// store make each alert happen once however many instances see it.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { AlertConfig } from '../config/alert-env.ts';
import type { Database } from '../store/schema.ts';
import type { AlertEmitter, SpendLevel } from './emitter.ts';
import { SPEND_THRESHOLDS } from './events.ts';

/** Where spending levels come from: token quotas here; account quotas and budgets plug in the same way. */
export interface SpendSource {
  /** The levels at or past the lowest threshold (the others cannot raise an alert). */
  levels(now: number): Promise<SpendLevel[]>;
}

/** The lowest threshold (percent): the SQL filter of every source. */
const LOWEST = SPEND_THRESHOLDS[0];

/** Tokens with a quota, spent at least half of it: the quota's amount is its period (a top-up starts a new one). */
export function tokenQuotaSource(db: Kysely<Database>): SpendSource {
  return {
    async levels() {
      const rows = await db
        .selectFrom('tokens')
        .select(['id', 'spent', 'quota'])
        .where('quota', 'is not', null)
        .where('quota', '>', 0)
        .where('revoked_at', 'is', null)
        .where(sql<boolean>`spent * 100 >= quota * ${LOWEST}`)
        .execute();
      return rows.map((r): SpendLevel => ({ holderKind: 'token', holderId: r.id, limitKind: 'quota', periodKey: String(r.quota), spent: Number(r.spent), limit: Number(r.quota) }));
    },
  };
}

export class AlertWatch {
  /** The highest threshold this process knows announced per level: spares re-asking the store each check. */
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly emitter: AlertEmitter,
    private readonly sources: SpendSource[],
    private readonly o: Pick<AlertConfig, 'taskFailurePercent' | 'taskFailureWindowMs' | 'taskFailureMinTasks'>,
  ) {}

  async check(now = Date.now()): Promise<void> {
    for (const s of this.sources) for (const level of await s.levels(now)) await this.spend(level);
    await this.taskFailureRate(now);
  }

  private async spend(level: SpendLevel): Promise<void> {
    const id = `${level.holderKind}:${level.holderId}:${level.limitKind}:${level.periodKey}`;
    const percent = (level.spent * 100) / level.limit;
    const highest = SPEND_THRESHOLDS.filter((t) => percent >= t).at(-1) ?? 0;
    if ((this.seen.get(id) ?? 0) >= highest) return;
    await this.emitter.spendCrossed(level);
    this.seen.set(id, highest);
  }

  /** The failed share of the tasks finished in the last window; one alert per window length at most. */
  async taskFailureRate(now = Date.now()): Promise<boolean> {
    const { taskFailureWindowMs: windowMs, taskFailurePercent: percent, taskFailureMinTasks: min } = this.o;
    const rows = await this.db
      .selectFrom('tasks')
      .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
      .where('finished_at', 'is not', null)
      .where('finished_at', '>', now - windowMs)
      .where('state', 'in', ['succeeded', 'failed'])
      .groupBy('state')
      .execute();
    const failed = Number(rows.find((r) => r.state === 'failed')?.n ?? 0);
    const finished = rows.reduce((a, r) => a + Number(r.n), 0);
    if (finished < min || failed * 100 < percent * finished) return false;
    const bucket = Math.floor(now / windowMs);
    const data = { window_ms: windowMs, since: now - windowMs, until: now, finished, failed, failure_percent: Math.floor((failed * 100) / finished), threshold_percent: percent };
    return this.emitter.emit('tasks.failure_rate', data, { markKey: `tasks-failure:${windowMs}:${bucket}`, at: now });
  }
}
