// Ledger lines as a table: each line's quantities and the unit prices in force, so a charge explains itself. Used
// by a request's page and a task's page.
import { Pairs } from './pairs.tsx';
import type { LedgerLineView } from './types.ts';
import { units } from './format.ts';

/** `withModel`: also each line's kind and model (a request's lines may name several). */
export function LedgerTable({
  id,
  lines,
  caption,
  withModel = false,
}: {
  id: string;
  lines: readonly Pick<LedgerLineView, 'id' | 'kind' | 'model' | 'quantities' | 'unit_prices' | 'amount'>[];
  caption: string;
  withModel?: boolean;
}) {
  return (
    <div class="table-wrap">
      <table id={id}>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Line</th>
            {withModel && <th scope="col">Kind</th>}
            {withModel && <th scope="col">Model</th>}
            <th scope="col">Quantities</th>
            <th scope="col">Unit prices</th>
            <th scope="col" class="num">
              Amount
            </th>
          </tr>
        </thead>
        <tbody>
          {lines.map((l) => (
            <tr key={l.id}>
              <td>{l.id}</td>
              {withModel && <td>{l.kind}</td>}
              {withModel && <td>{l.model}</td>}
              <td>
                <Pairs value={l.quantities} label="Quantities" />
              </td>
              <td>
                <Pairs value={l.unit_prices} label="Unit prices" />
              </td>
              <td class="num">{units(l.amount)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
