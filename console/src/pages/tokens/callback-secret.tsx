// A token's callback secret: when it was issued, whether the one before still signs, and its rotation — the new secret
// shown once, here. By default the replaced secret keeps signing for the gateway's window (24 h unless configured),
// so the client can switch its receiver without refusing a callback.
import { useRef, useState } from 'preact/hooks';
import { call } from '../../api.ts';
import { time } from '../../format.ts';
import type { Token } from '../../types.ts';
import { errorText } from '../../use-load.ts';
import { SecretValue, useInView } from '../../shown-secret.tsx';

type Rotated = Token & { callback_secret: string };

export function CallbackSecret({ token, onDone }: { token: Token; onDone: () => void }) {
  const [stopOld, setStopOld] = useState(false);
  const [shown, setShown] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // A double click rotates once: the second secret would replace the first before anyone saw it.
  const sending = useRef(false);
  const shownBox = useInView<HTMLElement>(shown);
  const rotate = async () => {
    if (sending.current) return;
    sending.current = true;
    setBusy(true);
    setError(null);
    try {
      const r = await call<Rotated>(`/admin/tokens/${encodeURIComponent(token.id)}/callback-secret/rotate`, {
        method: 'POST',
        json: stopOld ? { grace_ms: 0 } : {},
      });
      setShown(r.callback_secret);
      onDone();
    } catch (err) {
      setError(errorText(err));
    } finally {
      sending.current = false;
      setBusy(false);
    }
  };
  const now = Date.now();
  const previous = token.previous_callback_secret_until;
  return (
    <section aria-labelledby="cbs-title" data-write="tokens">
      <h3 id="cbs-title">Callback secret</h3>
      <p id="cbs-state" class="muted">
        {token.callback_secret_issued_at === null
          ? 'Never issued (a token older than callback secrets): rotate to issue one to its client.'
          : `Issued ${time(token.callback_secret_issued_at)}.`}
        {previous !== null && previous > now && ` The previous one signs too until ${time(previous)}.`}
      </p>
      <label class="check">
        <input type="checkbox" checked={stopOld} onChange={(e) => setStopOld(e.currentTarget.checked)} /> Stop signing
        with the current one at once
      </label>
      <div class="actions">
        <button type="button" disabled={busy} onClick={() => void rotate()}>
          Rotate callback secret
        </button>
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {shown && (
        <section ref={shownBox} tabIndex={-1} aria-labelledby="rotated-callback-title">
          <p id="rotated-callback-title">The new callback secret, shown only this once:</p>
          <SecretValue id="rotated-callback-secret" value={shown} copyLabel="Copy callback secret" />
        </section>
      )}
    </section>
  );
}
