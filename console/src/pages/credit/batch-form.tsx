// Create a batch of redemption codes: how many, the units each credits, until when, and a name to find it by.
import { useState } from 'preact/hooks';
import { call } from '../../api.ts';
import { fromLocalInput, parseUnits, toLocalInput } from '../../format.ts';
import { errorText } from '../../use-load.ts';
import type { Batch } from './types.ts';

const DAY = 86_400_000;

export function BatchForm({ onCreated }: { onCreated: (b: Batch & { codes: string[] }) => void }) {
  const [name, setName] = useState('');
  const [count, setCount] = useState('10');
  const [amount, setAmount] = useState('');
  const [expires, setExpires] = useState(() => toLocalInput(Date.now() + 30 * DAY));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const micro = parseUnits(amount);
    if (micro === null || Number.isNaN(micro)) {
      setError('Units per code: a positive number with at most six decimals');
      return;
    }
    setBusy(true);
    try {
      const expiresAt = fromLocalInput(expires);
      onCreated(
        await call<Batch & { codes: string[] }>('/admin/credit/batches', {
          method: 'POST',
          json: {
            count: Number(count),
            amount: micro,
            ...(expiresAt !== undefined ? { expires_at: expiresAt } : {}),
            ...(name.trim() ? { name: name.trim() } : {}),
          },
        }),
      );
      setName('');
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="form-grid" onSubmit={submit} aria-labelledby="cb-title" data-write="credit">
      <h2 id="cb-title">Create redemption codes</h2>
      <div>
        <label for="cb-name">Name (optional)</label>
        <input id="cb-name" maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </div>
      <div>
        <label for="cb-count">Number of codes</label>
        <input
          id="cb-count"
          type="number"
          min={1}
          max={1000}
          required
          value={count}
          onInput={(e) => setCount(e.currentTarget.value)}
        />
      </div>
      <div>
        <label for="cb-amount">Units per code</label>
        <input
          id="cb-amount"
          inputMode="decimal"
          required
          value={amount}
          onInput={(e) => setAmount(e.currentTarget.value)}
        />
      </div>
      <div>
        <label for="cb-expires">Expires</label>
        <input
          id="cb-expires"
          type="datetime-local"
          required
          value={expires}
          onInput={(e) => setExpires(e.currentTarget.value)}
        />
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="actions">
        <button type="submit" disabled={busy}>
          Create codes
        </button>
      </div>
    </form>
  );
}
