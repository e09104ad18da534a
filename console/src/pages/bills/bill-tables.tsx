// The bill's tables, from its per-model lines (GET /admin/bills?by=model): spend per model over the whole range, the
// lines per period, token and model, and the top-ups apart (credits are not charges).
import { num, units } from '../../format.ts';
import { Share } from '../../share.tsx';
import type { BillModelLine, BillPeriod } from '../../types.ts';
import { Name } from '../../name.tsx';

const tokenCell = (l: BillModelLine) => (
  <td>
    <Name value={l.token_name ?? '—'} /> <code>{l.token_id}</code>
  </td>
);

export function ModelTotals({ lines, total }: { lines: BillModelLine[]; total: number }) {
  // Upstream cost and margin: of the charges that recorded their cost (their channel states one).
  const by = new Map<string, { entries: number; amount: number; costed: number; cost: number; margin: number }>();
  for (const l of lines) {
    if (l.kind !== 'charges' || l.model === null) continue;
    const m = by.get(l.model) ?? { entries: 0, amount: 0, costed: 0, cost: 0, margin: 0 };
    m.entries += l.entries;
    m.amount += Number(l.amount);
    m.costed += l.costed_entries ?? 0;
    m.cost += Number(l.upstream_cost ?? 0);
    m.margin += Number(l.margin ?? 0);
    by.set(l.model, m);
  }
  const rows = [...by].sort((a, b) => b[1].amount - a[1].amount || a[0].localeCompare(b[0]));
  return (
    <div class="table-wrap">
      <table id="bill-models">
        <caption>Spend per model</caption>
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col" class="num">
              Entries
            </th>
            <th scope="col" class="num">
              Amount
            </th>
            <th scope="col" class="num">
              Upstream cost
            </th>
            <th scope="col" class="num">
              Margin
            </th>
            <th scope="col">Share</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([model, m]) => (
            <tr key={model}>
              <th scope="row">{model}</th>
              <td class="num">{num(m.entries)}</td>
              <td class="num">{units(m.amount)}</td>
              <td class="num">{m.costed > 0 ? units(m.cost) : '—'}</td>
              <td class="num">{m.costed > 0 ? units(m.margin) : '—'}</td>
              <td>
                <Share part={m.amount} whole={total} of={`${model}, share of the spend`} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function BillLines({ lines, period }: { lines: BillModelLine[]; period: BillPeriod }) {
  const charges = lines.filter((l) => l.kind === 'charges');
  return (
    <div class="table-wrap">
      <table id="bill-lines">
        <caption>Bill lines: per {period}, token and model</caption>
        <thead>
          <tr>
            <th scope="col">{period === 'day' ? 'Day (UTC)' : 'Month (UTC)'}</th>
            <th scope="col">Token</th>
            <th scope="col">Model</th>
            <th scope="col" class="num">
              Entries
            </th>
            <th scope="col" class="num">
              Amount
            </th>
          </tr>
        </thead>
        <tbody>
          {charges.map((l) => (
            <tr key={`${l.period_start}/${l.token_id}/${l.model}`}>
              <td>{l.period_start}</td>
              {tokenCell(l)}
              <td>{l.model}</td>
              <td class="num">{num(l.entries)}</td>
              <td class="num">{l.amount_units}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function TopUps({ lines, period }: { lines: BillModelLine[]; period: BillPeriod }) {
  const credits = lines.filter((l) => l.kind === 'credit');
  if (credits.length === 0) return null;
  return (
    <div class="table-wrap">
      <table id="bill-credits">
        <caption>Top-ups (added to quotas; not part of the amounts above)</caption>
        <thead>
          <tr>
            <th scope="col">{period === 'day' ? 'Day (UTC)' : 'Month (UTC)'}</th>
            <th scope="col">Token</th>
            <th scope="col" class="num">
              Top-ups
            </th>
            <th scope="col" class="num">
              Added
            </th>
          </tr>
        </thead>
        <tbody>
          {credits.map((l) => (
            <tr key={`${l.period_start}/${l.token_id}`}>
              <td>{l.period_start}</td>
              {tokenCell(l)}
              <td class="num">{num(l.entries)}</td>
              <td class="num">{l.amount_units}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
