// Top up a quota (a token's or an account's: the POST …/topup it is given). Each submission carries an idempotency key
// of its own, kept until it is answered: a
// double click, or the same submission sent again after a lost answer, credits once. Another amount is another
// submission (a new key).
import { useRef, useState } from 'preact/hooks';
import { call } from '../../api.ts';
import { parseUnits, units } from '../../format.ts';
import type { TopUpView } from '../../types.ts';

/** What a token's and an account's top-up both answer: the quota after it, and whether this submission credited it. */
type TopUpAnswer = Pick<TopUpView, 'quota' | 'topup'>;
import { errorText } from '../../use-load.ts';

/** 128 random bits as hex (crypto.getRandomValues works on plain-http origins too, randomUUID does not). */
function newKey(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  return `console-${Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')}`;
}

/** `path`: the holder's top-up address; `what`: the holder in words ("token", "account"). */
export function TopUpForm({
  path,
  quota,
  what,
  onDone,
}: {
  path: string;
  quota: number | null;
  what: string;
  onDone: (t: TopUpAnswer) => void;
}) {
  const [amount, setAmount] = useState('');
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const key = useRef(newKey());
  const sending = useRef(false);
  if (quota === null) {
    return (
      <div>
        <h3>Top up</h3>
        <p class="muted">
          This {what} has no quota (unlimited): there is nothing to top up. Give it a quota below first.
        </p>
      </div>
    );
  }
  const submit = async (e: Event) => {
    e.preventDefault();
    if (sending.current) return;
    setError(null);
    setStatus(null);
    const micro = parseUnits(amount);
    if (micro === null || Number.isNaN(micro) || micro <= 0)
      return setError('Enter a positive amount in units, with at most six decimals');
    sending.current = true;
    setBusy(true);
    try {
      const r = await call<TopUpAnswer>(path, {
        method: 'POST',
        json: { amount: micro, idempotency_key: key.current },
      });
      setStatus(
        r.topup.credited
          ? `Added ${units(micro)}; the quota is now ${units(r.quota)}`
          : `Already added by this submission; the quota is ${units(r.quota)}`,
      );
      key.current = newKey();
      setAmount('');
      onDone(r);
    } catch (err) {
      // The key is kept: submitting the same amount again is the same top-up.
      setError(errorText(err));
    } finally {
      sending.current = false;
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} aria-labelledby="topup-title" data-write="credit">
      <h3 id="topup-title">Top up</h3>
      <label for="topup-amount">Amount to add in units</label>
      <input
        id="topup-amount"
        type="number"
        min="0.000001"
        step="0.000001"
        required
        value={amount}
        onInput={(e) => {
          setAmount(e.currentTarget.value);
          key.current = newKey();
        }}
      />
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="actions">
        <button type="submit" disabled={busy}>
          Add to quota
        </button>
        <span role="status">{status}</span>
      </div>
    </form>
  );
}
