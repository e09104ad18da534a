// The money series of /metrics (docs/operations.md#metrics): spend per model and kind, read from the ledger at
// scrape time so it is the ledger's total by construction (a video task's charge is written by whichever instance or
// poller thread settles it); the tokens in and out of text calls, counted as each call is recorded; and what the
// accounts with a limit have left, for at most ACCOUNT_SERIES accounts (the nearest to their limit).
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from 'pino';
import { isObject } from '../json/json.ts';
import { periodBounds, type BudgetPeriod } from '../metering/periods.ts';
import { remaining } from '../metering/balances/remaining.ts';
import { decodeBudgets } from '../store/budgets-text.ts';
import type { LimitedAccount, MoneyGaugesRepo } from '../store/repos/money-gauges.ts';

/** The most accounts `tollway_account_remaining_units` shows: the ones with the least share of a limit left. */
export const ACCOUNT_SERIES = 100;
const UNIT = 1_000_000;

export interface AccountRemaining {
  account: string;
  name: string;
  /** `quota`, or a budget's period (day, week, month). */
  limit: string;
  remaining: number;
  /** remaining / limit (1 when the limit is 0 and nothing is used). */
  share: number;
}

/** Each limit of each account with what it leaves now; the `ACCOUNT_SERIES` accounts nearest a limit. */
export function accountsRemaining(accounts: readonly LimitedAccount[], now: number): AccountRemaining[] {
  const byAccount = new Map<string, AccountRemaining[]>();
  for (const a of accounts) {
    const out: AccountRemaining[] = [];
    const add = (limit: string, of: number, left: number) =>
      out.push({ account: a.id, name: a.name, limit, remaining: left, share: of > 0 ? left / of : left > 0 ? 1 : 0 });
    if (a.quota !== null) add('quota', a.quota, remaining(a.quota, a.spent, a.held));
    for (const b of decodeBudgets(a.budgets)) {
      const { start } = periodBounds(b.period as BudgetPeriod, now, a.timeZone);
      const row = a.periods.find((p) => p.period === b.period && p.start === start);
      add(b.period, b.limit, remaining(b.limit, row?.spent ?? 0, row?.held ?? 0));
    }
    byAccount.set(a.id, out);
  }
  const least = (xs: AccountRemaining[]) => Math.min(...xs.map((x) => x.share));
  return [...byAccount.values()]
    .filter((xs) => xs.length > 0)
    .sort((x, y) => least(x) - least(y) || (x[0]!.account < y[0]!.account ? -1 : 1))
    .slice(0, ACCOUNT_SERIES)
    .flat();
}

export class MoneyMetrics {
  private readonly tokensTotal: Counter<'model' | 'direction'>;

  constructor(registry: Registry, repo: MoneyGaugesRepo, logger: Pick<Logger, 'warn'>, now: () => number = Date.now) {
    const registers = [registry];
    new Counter({
      name: 'tollway_spend_units_total',
      help: "Charges written to the ledger, in units (1 unit = 1,000,000 micro-units), by public model and ledger kind (tokens, images, video, video-mode); read from the ledger at scrape time (database-wide): equal to the ledger's total",
      labelNames: ['model', 'kind'],
      registers,
      async collect() {
        try {
          const rows = await repo.spendTotals();
          this.reset();
          for (const r of rows) this.inc({ model: r.model, kind: r.kind }, Number(r.amount) / UNIT);
        } catch (e) {
          logger.warn({ err: String(e) }, 'metrics: ledger spend not read');
        }
      },
    });
    this.tokensTotal = new Counter({
      name: 'tollway_tokens_total',
      help: 'Tokens of text calls answered by this instance, by public model and direction (input, output), as charged (the upstream-reported usage, or the estimate when it reported none)',
      labelNames: ['model', 'direction'],
      registers,
    });
    new Gauge({
      name: 'tollway_account_remaining_units',
      help: `What each limit (quota, or a budget's current day, week or month) of an account leaves, in units; accounts with a limit only, at most ${ACCOUNT_SERIES} of them: the ones with the least share of a limit left (database-wide)`,
      labelNames: ['account', 'name', 'limit'],
      registers,
      async collect() {
        try {
          const at = now();
          const rows = accountsRemaining(await repo.limitedAccounts(at), at);
          this.reset();
          for (const r of rows) this.set({ account: r.account, name: r.name, limit: r.limit }, r.remaining / UNIT);
        } catch (e) {
          logger.warn({ err: String(e) }, 'metrics: account limits not read');
        }
      },
    });
  }

  /** A recorded request's usage: a text call's tokens in and out. */
  answered(model: string | null, usage: unknown): void {
    if (!isObject(usage)) return;
    const { input_tokens: i, output_tokens: o } = usage;
    if (typeof i !== 'number' || typeof o !== 'number') return;
    const m = model ?? '';
    if (i > 0) this.tokensTotal.inc({ model: m, direction: 'input' }, i);
    if (o > 0) this.tokensTotal.inc({ model: m, direction: 'output' }, o);
  }
}
