// A staff key just made (a new person's first key, another key, a rotation): shown only this once, with a copy button.
import type { CreatedStaffKey } from '../../types.ts';
import { Name } from '../../name.tsx';

export function ShownKey({ who, shown, onDone }: { who: string; shown: CreatedStaffKey; onDone: () => void }) {
  return (
    <div class="card secret" role="status">
      <h2>
        Staff key of “<Name value={who} />”
      </h2>
      <p>
        Copy it now: it is shown only this once and is stored hashed. It expires on{' '}
        {new Date(shown.expires_at).toISOString().slice(0, 10)}.
      </p>
      <code id="new-staff-key" class="wrap">
        {shown.secret}
      </code>
      <div class="actions">
        <button type="button" onClick={() => void navigator.clipboard?.writeText(shown.secret)}>
          Copy key
        </button>
        <button type="button" class="quiet" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}
