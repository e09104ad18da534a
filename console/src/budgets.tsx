// Budgets, as accounts and tokens both have them: a limit per calendar day, week and month. The forms' three amount
// fields (the API takes them as one list, so a change to any sends all that are set) and the table of each budget in
// its current period.
import { parseUnits, time, units, unitsInput } from './format.ts';
import { Share } from './share.tsx';
import type { BudgetStatus } from './types.ts';

export const PERIODS = ['day', 'week', 'month'] as const;
export type Period = (typeof PERIODS)[number];
export type BudgetInputs = Record<Period, string>;
type Budget = { period: string; limit: number };

const LABELS: Record<Period, string> = {
  day: 'Daily budget in units (empty = none)',
  week: 'Weekly budget in units (empty = none; weeks start on Monday)',
  month: 'Monthly budget in units (empty = none)',
};
const NAMES: Record<string, string> = { day: 'Day', week: 'Week', month: 'Month' };

/** The fields' values for the stored budgets ('' = no budget for that period). */
export function budgetInputs(budgets: Budget[] | null): BudgetInputs {
  const limit = (p: Period) => {
    const b = budgets?.find((x) => x.period === p);
    return b ? unitsInput(b.limit) : '';
  };
  return { day: limit('day'), week: limit('week'), month: limit('month') };
}

/** The `budgets` list to send (empty fields left out; none at all removes every budget), or an error message. */
export function budgetList(v: BudgetInputs): Budget[] | string {
  const out: Budget[] = [];
  for (const p of PERIODS) {
    const micro = parseUnits(v[p]);
    if (Number.isNaN(micro))
      return `${LABELS[p].replace(/ in units.*/, '')}: enter an amount in units with at most six decimals`;
    if (micro !== null) out.push({ period: p, limit: micro });
  }
  return out;
}

/** The three amount fields, ids `<prefix>-day|week|month`, laid out in the owner's form grid. */
export function BudgetFields({
  prefix,
  values,
  onInput,
}: {
  prefix: string;
  values: BudgetInputs;
  onInput: (p: Period, v: string) => void;
}) {
  return (
    <>
      {PERIODS.map((p) => (
        <div key={p}>
          <label for={`${prefix}-${p}`}>{LABELS[p]}</label>
          <input
            id={`${prefix}-${p}`}
            type="number"
            min="0"
            step="0.000001"
            value={values[p]}
            onInput={(e) => onInput(p, e.currentTarget.value)}
          />
        </div>
      ))}
    </>
  );
}

/** Each budget in its current period: limit, spent, held, remaining, the share used and when it starts again. */
export function BudgetTable({ id, budgets, caption }: { id: string; budgets: BudgetStatus[]; caption: string }) {
  return (
    <div class="table-wrap">
      <table id={id}>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Period</th>
            <th scope="col" class="num">
              Limit
            </th>
            <th scope="col" class="num">
              Spent
            </th>
            <th scope="col" class="num">
              Held
            </th>
            <th scope="col" class="num">
              Remaining
            </th>
            <th scope="col">Used</th>
            <th scope="col">Starts again</th>
          </tr>
        </thead>
        <tbody>
          {budgets.map((b) => (
            <tr key={b.period}>
              <th scope="row">{NAMES[b.period] ?? b.period}</th>
              <td class="num">{units(b.limit)}</td>
              <td class="num">{units(b.spent)}</td>
              <td class="num">{units(b.held)}</td>
              <td class="num">{units(b.remaining)}</td>
              <td>
                <Share part={b.spent + b.held} whole={b.limit} of={`${NAMES[b.period] ?? b.period} budget used`} />
              </td>
              <td>{time(b.resets_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
