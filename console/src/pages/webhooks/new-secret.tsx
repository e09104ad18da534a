// A webhook's signing secret, shown only once, right under the button that created it: scrolled into view and its
// copy button focused, so the operator sees it (at any width) and copies it before anything else.
import { useEffect, useRef, useState } from 'preact/hooks';

export function NewSecret({ id, secret, onDone }: { id: string; secret: string; onDone: () => void }) {
  const card = useRef<HTMLDivElement>(null);
  const copyButton = useRef<HTMLButtonElement>(null);
  const [copied, setCopied] = useState<boolean | null>(null);
  useEffect(() => {
    card.current?.scrollIntoView({ block: 'nearest' });
    copyButton.current?.focus({ preventScroll: true });
  }, [secret]);
  const copy = () =>
    navigator.clipboard?.writeText(secret).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  return (
    <div ref={card} class="card secret webhook-secret" role="status" aria-labelledby="new-webhook-secret-title">
      <h3 id="new-webhook-secret-title">Signing secret of {id}</h3>
      <p>Copy it now: it is shown only this once. Your receiver verifies each delivery with it (Standard Webhooks).</p>
      <code id="new-webhook-secret" class="wrap">
        {secret}
      </code>
      <div class="actions">
        <button ref={copyButton} type="button" onClick={() => void copy()}>
          Copy secret
        </button>
        <button type="button" class="quiet" onClick={onDone}>
          Done
        </button>
        {copied !== null && <span class="muted">{copied ? 'Copied.' : 'Copy refused by the browser: select it.'}</span>}
      </div>
    </div>
  );
}
