// A JSON object's entries as a definition list (quantities, unit prices): the log detail's and the ledger table's.
import { pairs } from './format.ts';

export function Pairs({ value, label }: { value: unknown; label: string }) {
  const list = pairs(value);
  if (!list.length) return <span class="muted">none</span>;
  return (
    <dl class="pairs" aria-label={label}>
      {list.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}
