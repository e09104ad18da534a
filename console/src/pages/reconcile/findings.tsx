// The reconciliation report's findings, each kind as its own table with the fields the report gives (amounts in
// units, ages in minutes, times local); a kind with nothing found says so in one line.
import type { ComponentChildren } from 'preact';
import { time, units } from '../../format.ts';
import type { ReconcileReport } from '../../../../src/core/reconcile.ts';
import { capital, FINDINGS, type Key } from './verdict.ts';

type Column = readonly [string, boolean?];
type Cell = ComponentChildren;

/** Column headers (true: a number, right-aligned) and one row of cells per finding. */
function rowsOf(r: ReconcileReport, key: Key): { cols: Column[]; rows: Array<[string, Cell[]]> } {
  switch (key) {
    case 'mismatches':
      return {
        cols: [['Key'], ['Model'], ['Ledger', true], ['Upstream usage, priced', true], ['Reason']],
        rows: r.mismatches.map((m) => [
          m.key,
          [<code>{m.key}</code>, m.model, units(m.ledger_amount), units(m.reported_amount), m.reason],
        ]),
      };
    case 'open_holds':
      return {
        cols: [['Key'], ['Token'], ['Amount', true], ['Age (minutes)', true], ['Reason']],
        rows: r.open_holds.map((h) => [
          h.key,
          [<code>{h.key}</code>, <code>{h.token_id}</code>, units(h.amount), Math.floor(h.age_ms / 60_000), h.reason],
        ]),
      };
    case 'tasks_charged_without_success':
      return {
        cols: [['Task'], ['State'], ['Amount', true]],
        rows: r.tasks_charged_without_success.map((t) => [
          t.task_id,
          [<a href={`#/tasks/${encodeURIComponent(t.task_id)}`}>{t.task_id}</a>, t.state, units(t.amount)],
        ]),
      };
    case 'successes_without_charge':
      return {
        cols: [['Task'], ['Model']],
        rows: r.successes_without_charge.map((t) => [
          t.task_id,
          [<a href={`#/tasks/${encodeURIComponent(t.task_id)}`}>{t.task_id}</a>, t.model],
        ]),
      };
    case 'lost_submits':
      return {
        cols: [['Task'], ['Token'], ['Model'], ['Channel'], ['Created'], ['Reason']],
        rows: r.lost_submits.map((t) => [
          t.task_id,
          [
            <a href={`#/tasks/${encodeURIComponent(t.task_id)}`}>{t.task_id}</a>,
            <code>{t.token_id}</code>,
            t.model,
            t.channel,
            time(t.created_at),
            t.reason,
          ],
        ]),
      };
    case 'upstream_disagreements':
      return {
        cols: [
          ['Task'],
          ['Model'],
          ['Channel'],
          ['Charged', true],
          ['At list price', true],
          ['Upstream units', true],
          ['Upstream cost', true],
          ['Ratio', true],
          ['Expected ratio', true],
          ['Reason'],
        ],
        rows: r.upstream_disagreements.map((d) => [
          d.task_id,
          [
            <a href={`#/tasks/${encodeURIComponent(d.task_id)}`}>{d.task_id}</a>,
            d.model,
            d.channel,
            units(d.amount),
            units(d.list_amount),
            d.upstream_units,
            units(d.upstream_cost),
            d.ratio.toFixed(3),
            d.price_ratio.toFixed(3),
            d.reason,
          ],
        ]),
      };
  }
}

function Finding({ report, name, label }: { report: ReconcileReport; name: Key; label: string }) {
  const { cols, rows } = rowsOf(report, name);
  const title = capital(label);
  if (rows.length === 0)
    return (
      <p class="finding-none" data-finding={name}>
        <strong>{title}:</strong> none.
      </p>
    );
  return (
    <div class="finding" data-finding={name}>
      <h3>
        {title}: {rows.length}
      </h3>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              {cols.map(([c, n]) => (
                <th key={c} scope="col" class={n ? 'num' : undefined}>
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map(([k, cells]) => (
              <tr key={k}>
                {cells.map((c, i) => (
                  <td key={i} class={cols[i]?.[1] ? 'num' : cols[i]?.[0] === 'Reason' ? 'wrap' : 'nowrap'}>
                    {c}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

export function Findings({ report }: { report: ReconcileReport }) {
  return (
    <>
      <h2>Findings</h2>
      {FINDINGS.map(([name, label]) => (
        <Finding key={name} report={report} name={name} label={label} />
      ))}
    </>
  );
}
