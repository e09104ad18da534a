// The data of the spending alerts (spend.threshold, limit.reached): who (ids and names), which limit and period (ISO
// start and end), the figures, and a sentence a person can read. The webhook's receiver gets these as `data`.
import type { Kysely } from 'kysely';
import type { LimitRefused } from '../metering/refusal.ts';
import { formatUnits } from '../pricing/prices.ts';
import type { Database } from '../store/schema.ts';
import type { HolderKind, SpendLevel } from './events.ts';

/** The name of a token or an account (null when it is gone). */
export async function holderName(db: Kysely<Database>, kind: HolderKind, id: string): Promise<string | null> {
  const table = kind === 'token' ? 'tokens' : 'accounts';
  const r = await db.selectFrom(table).select('name').where('id', '=', id).executeTakeFirst();
  return r?.name ?? null;
}

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

function who(kind: HolderKind, name: string | null, id: string): string {
  return `The ${kind} ${name === null ? id : `"${name}" (${id})`}`;
}

function limitWords(limitKind: 'quota' | 'budget', budgetPeriod: string | null | undefined): string {
  return limitKind === 'quota' ? 'quota' : `${budgetPeriod} budget`;
}

function periodWords(start: string | null, end: string | null): string {
  return start === null || end === null ? '' : ` (period ${start} to ${end})`;
}

/** spend.threshold's data: the legacy fields (holder {kind, id}, limit {kind, period, amount}) kept, with more. */
export function thresholdData(level: SpendLevel, threshold: number, name: string | null): Record<string, unknown> {
  const start = iso(level.periodStart);
  const end = iso(level.periodEnd);
  const limit = limitWords(level.limitKind, level.budgetPeriod);
  return {
    holder: { kind: level.holderKind, id: level.holderId, name },
    limit: {
      kind: level.limitKind,
      // Deprecated (one release): `<period>:<start ms>` for a budget, the quota's amount for a quota.
      period: level.periodKey,
      budget_period: level.budgetPeriod ?? null,
      period_start: start,
      period_end: end,
      amount: level.limit,
    },
    threshold,
    spent: level.spent,
    percent: Math.floor((level.spent * 100) / level.limit),
    message:
      `${who(level.holderKind, name, level.holderId)} has spent ${Math.floor((level.spent * 100) / level.limit)} % ` +
      `of its ${limit}: ${formatUnits(level.spent)} of ${formatUnits(level.limit)} units${periodWords(start, end)}.`,
  };
}

/** limit.reached's data: the limit that refused a call, the call's estimate and what the limit leaves. */
export function limitReachedData(r: LimitRefused, name: string | null): Record<string, unknown> {
  const start = iso(r.periodStart);
  const end = iso(r.periodEnd);
  const limit = limitWords(r.limitKind, r.period);
  const refused =
    r.left <= 0
      ? `its ${limit} is used up`
      : `a ${r.subject}'s estimate of ${formatUnits(r.estimate)} units is above the ${formatUnits(r.left)} units its ${limit} leaves`;
  return {
    holder: { kind: r.holderKind, id: r.holderId, name },
    limit: {
      kind: r.limitKind,
      budget_period: r.period,
      period_start: start,
      period_end: end,
      amount: r.limit,
    },
    estimate: r.estimate,
    remaining: r.left,
    message:
      `${who(r.holderKind, name, r.holderId)} has calls refused: ${refused}${periodWords(start, end)}` +
      (end === null ? '. A top-up or a higher quota lets them through.' : `. Calls are accepted again from ${end}.`),
  };
}
