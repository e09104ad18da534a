// The alerts found by looking rather than told as they happen: spending past a threshold of its limit, and the task
// failure rate over a window. Each check is cheap (an indexed read) and runs on every instance; the marks in the
// store make each alert happen once however many instances see it.
import { decodeBudgets } from '../store/budgets-text.ts';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { AlertConfig } from '../config/alert-env.ts';
import type { Database } from '../store/schema.ts';
import type { AlertEmitter, SpendLevel } from './emitter.ts';
import { SPEND_THRESHOLDS } from './events.ts';
import { periodBounds, type BudgetPeriod } from '../metering/periods.ts';

/** Where spending levels come from: token quotas here; account quotas and budgets plug in the same way. */
export interface SpendSource {
  /** The levels at or past the lowest threshold (the others cannot raise an alert). */
  levels(now: number): Promise<SpendLevel[]>;
}

/** The lowest threshold (percent): the SQL filter of every source. */
const LOWEST = SPEND_THRESHOLDS[0];

/**
 * Tokens (or accounts) with a quota, spent at least half of it: the quota's amount is its period (a top-up starts a
 * new one).
 */
export function quotaSource(db: Kysely<Database>, holderKind: 'token' | 'account'): SpendSource {
  const table = holderKind === 'token' ? 'tokens' : 'accounts';
  return {
    async levels() {
      const rows = await db
        .selectFrom(table)
        .select(['id', 'spent', 'quota'])
        .where('quota', 'is not', null)
        .where('quota', '>', 0)
        .where('revoked_at', 'is', null)
        .where(sql<boolean>`spent * 100 >= quota * ${LOWEST}`)
        .execute();
      return rows.map(
        (r): SpendLevel => ({
          holderKind,
          holderId: r.id,
          limitKind: 'quota',
          periodKey: String(r.quota),
          spent: Number(r.spent),
          limit: Number(r.quota),
        }),
      );
    },
  };
}

export const tokenQuotaSource = (db: Kysely<Database>): SpendSource => quotaSource(db, 'token');

/** The longest budget period (a month) and a day's slack: older period rows cannot raise an alert any more. */
const RECENT_PERIODS_MS = 32 * 86_400_000;

function budgetLimits(json: string | null): Map<string, number> {
  return new Map(decodeBudgets(json).map((b) => [b.period, b.limit]));
}

/**
 * Budgets of tokens and accounts: each recent period's spend row (one per holder, period and start) against its
 * holder's limit for that period; the period's start names the alert's period, so each period alerts afresh.
 */
export function budgetSource(db: Kysely<Database>): SpendSource {
  return {
    async levels(now) {
      const rows = await db
        .selectFrom('budget_spend')
        .select(['holder_id', 'period', 'period_start', 'spent'])
        .where('period_start', '>=', now - RECENT_PERIODS_MS)
        .where('spent', '>', 0)
        .execute();
      if (rows.length === 0) return [];
      const ids = [...new Set(rows.map((r) => r.holder_id))];
      const [tokens, accounts] = await Promise.all([
        db
          .selectFrom('tokens')
          .leftJoin('accounts', 'accounts.id', 'tokens.account_id')
          .select(['tokens.id as id', 'tokens.budgets as budgets', 'accounts.time_zone as tz'])
          .where('tokens.id', 'in', ids)
          .where('tokens.budgets', 'is not', null)
          .execute(),
        db
          .selectFrom('accounts')
          .select(['id', 'budgets', 'time_zone as tz'])
          .where('id', 'in', ids)
          .where('budgets', 'is not', null)
          .execute(),
      ]);
      type Holder = { kind: 'token' | 'account'; limits: Map<string, number>; tz: string | null };
      const holders = new Map<string, Holder>();
      for (const t of tokens) holders.set(t.id, { kind: 'token', limits: budgetLimits(t.budgets), tz: t.tz });
      for (const a of accounts) holders.set(a.id, { kind: 'account', limits: budgetLimits(a.budgets), tz: a.tz });
      const out: SpendLevel[] = [];
      for (const r of rows) {
        const h = holders.get(r.holder_id);
        const limit = h?.limits.get(r.period);
        if (!h || !limit || Number(r.spent) * 100 < limit * LOWEST) continue;
        out.push({
          holderKind: h.kind,
          holderId: r.holder_id,
          limitKind: 'budget',
          periodKey: `${r.period}:${Number(r.period_start)}`,
          spent: Number(r.spent),
          limit,
          budgetPeriod: r.period,
          periodStart: Number(r.period_start),
          // The period holding its start: its end in the holder's time zone.
          periodEnd: periodBounds(r.period as BudgetPeriod, Number(r.period_start), h.tz).end,
        });
      }
      return out;
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
    const data = {
      window_ms: windowMs,
      since: now - windowMs,
      until: now,
      finished,
      failed,
      failure_percent: Math.floor((failed * 100) / finished),
      threshold_percent: percent,
    };
    return this.emitter.emit('tasks.failure_rate', data, { markKey: `tasks-failure:${windowMs}:${bucket}`, at: now });
  }
}
