// The bill grouped by account (GET /admin/bills?by=account): a line per account and period with its charges, their
// amount at list price, its share of the whole and the account's top-ups; the lines of no account as "No account".
import { num, units } from '../../format.ts';
import { Share } from '../../share.tsx';
import type { BillAccountLine, BillPeriod } from '../../types.ts';
import { Name, plainName } from '../../name.tsx';

export function AccountLines({
  lines,
  total,
  period,
}: {
  lines: BillAccountLine[];
  total: number;
  period: BillPeriod;
}) {
  return (
    <div class="table-wrap">
      <table id="bill-accounts">
        <caption>
          Bill lines: per {period} and account (each charge counts for the account its token belonged to when it was
          made)
        </caption>
        <thead>
          <tr>
            <th scope="col">{period === 'day' ? 'Day (UTC)' : 'Month (UTC)'}</th>
            <th scope="col">Account</th>
            <th scope="col" class="num">
              Entries
            </th>
            <th scope="col" class="num">
              Amount
            </th>
            <th scope="col" class="num">
              At list price
            </th>
            <th scope="col">Share</th>
            <th scope="col" class="num">
              Top-ups
            </th>
          </tr>
        </thead>
        <tbody>
          {lines.length === 0 && (
            <tr>
              <td colSpan={7} class="muted">
                Nothing billed in this range
              </td>
            </tr>
          )}
          {lines.map((l) => {
            const name = l.account_id === null ? 'No account' : plainName(l.account_name ?? l.account_id);
            return (
              <tr key={`${l.period_start}/${l.account_id ?? ''}`} data-account-id={l.account_id ?? ''}>
                <td>{l.period_start}</td>
                <th scope="row">
                  {l.account_id === null ? (
                    <span class="muted">{name}</span>
                  ) : (
                    <>
                      <a href={`#/accounts/${encodeURIComponent(l.account_id)}`}>
                        <Name value={name} />
                      </a>{' '}
                      <code>{l.account_id}</code>
                    </>
                  )}
                </th>
                <td class="num">{num(l.entries)}</td>
                <td class="num">{l.amount_units}</td>
                <td class="num">{units(l.list_amount)}</td>
                <td>
                  <Share part={Number(l.amount)} whole={total} of={`${name}, ${l.period_start}, share of the spend`} />
                </td>
                <td class="num">{units(l.credits.amount)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
