// A table of the busiest models, tokens or accounts: requests, errors and spend.
import type { ComponentChildren } from 'preact';
import { num, units } from '../../format.ts';

interface TopRow {
  key: string;
  name: ComponentChildren;
  requests: number;
  errors: number;
  spend: number | string;
}

export function TopTable({ caption, head, rows }: { caption: string; head: string; rows: TopRow[] }) {
  return (
    <div class="card table-wrap">
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{head}</th>
            <th scope="col" class="num">
              Requests
            </th>
            <th scope="col" class="num">
              Errors
            </th>
            <th scope="col" class="num">
              Spend
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.key}>
              <th scope="row">{r.name}</th>
              <td class="num">{num(r.requests)}</td>
              <td class="num">{num(r.errors)}</td>
              <td class="num">{units(r.spend)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
