// GET /admin/accounts/{id}/usage: an account's balance, its budgets in their current periods (from the per-period
// rows, not the ledger), its tokens, and its charges per model over a period from the ledger, at the price charged
// and at list price.
import { GatewayError } from '../../errors/gateway-error.ts';
import { formatUnits } from '../../pricing/prices.ts';
import { addAmounts, type Amount } from '../../vocabulary/exact-amount.ts';
import type { Meter } from '../../metering/types.ts';
import type { AccountsRepo } from '../../store/repos/accounts.ts';
import type { LedgerRepo } from '../../store/repos/ledger.ts';
import { usagePeriod, type UsageRange } from '../usage-period.ts';
import { ledgerCount, type LedgerCount } from '../views.ts';
import { publicAccount, type AccountView } from './accounts.ts';
import { budgetStatus, type BudgetStatus } from './budgets.ts';

export interface AccountUsageDeps {
  readonly repos: { readonly accounts: AccountsRepo; readonly ledger: LedgerRepo };
  readonly meter: Pick<Meter, 'flush' | 'now'>;
}

export interface AccountUsageView {
  object: 'account_usage';
  account: AccountView;
  unit: string;
  budgets: BudgetStatus[];
  tokens: string[];
  period: { since: number; until: number };
  usage: {
    data: Array<LedgerCount & { model: string; amount: Amount; amount_units: string; list_amount: Amount }>;
    total: LedgerCount & { amount: Amount; amount_units: string; list_amount: Amount };
    credited: Amount;
  };
}

export async function accountUsage(
  deps: AccountUsageDeps,
  id: string,
  range: UsageRange,
  now = deps.meter.now(),
): Promise<AccountUsageView> {
  const { since, until } = usagePeriod(range, now);
  await deps.meter.flush();
  const a = await deps.repos.accounts.get(id);
  if (!a) throw new GatewayError('not_found', `Account ${id} not found`);
  const totals = await deps.repos.ledger.accountTotals(id, since, until);
  const data = totals.models.map((m) => ({
    model: m.model,
    ...ledgerCount(m.entries),
    amount: m.amount,
    amount_units: formatUnits(m.amount),
    list_amount: m.listAmount,
  }));
  const amount = addAmounts(...data.map((m) => m.amount));
  return {
    object: 'account_usage',
    account: publicAccount(a),
    unit: 'micro-units (1 unit = 1,000,000)',
    budgets: await budgetStatus(deps.repos.accounts, a.id, a.budgets, a.timeZone, now),
    tokens: await deps.repos.accounts.tokenIds(id),
    period: { since, until },
    usage: {
      data,
      total: {
        ...ledgerCount(data.reduce((s, m) => s + m.entries, 0)),
        amount,
        amount_units: formatUnits(amount),
        list_amount: addAmounts(...data.map((m) => m.list_amount)),
      },
      credited: totals.credit,
    },
  };
}
