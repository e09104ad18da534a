// A button whose action is asked again before it runs (revoking cannot be undone): the first press shows
// "Confirm …" and "Cancel"; an error of the action is shown beside them.
import { useState } from 'preact/hooks';
import { errorText } from './use-load.ts';
import { plainName } from './name.tsx';

export function ConfirmButton({
  label,
  confirm,
  name,
  run,
  onDone,
  write,
}: {
  label: string;
  confirm: string;
  name: string;
  run: () => Promise<unknown>;
  onDone: () => void;
  /** The area this action writes: hidden from a role that may not (main.tsx). */
  write?: string;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const go = async () => {
    setBusy(true);
    setError(null);
    try {
      await run();
      setAsking(false);
      onDone();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <span class="actions" data-write={write}>
      {asking ? (
        <>
          <button
            type="button"
            class="danger"
            disabled={busy}
            onClick={() => void go()}
            aria-label={`${confirm} ${plainName(name)}`}
          >
            {confirm}
          </button>
          <button type="button" class="quiet" onClick={() => setAsking(false)}>
            Cancel
          </button>
        </>
      ) : (
        <button type="button" class="quiet" onClick={() => setAsking(true)} aria-label={`${label} ${plainName(name)}`}>
          {label}
        </button>
      )}
      {error && (
        <span role="alert" class="error">
          {error}
        </span>
      )}
    </span>
  );
}
