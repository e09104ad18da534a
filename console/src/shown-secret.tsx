// A secret shown only once (a token, a callback secret, a key): the value, and a copy button that says what it did.
// The card holding it is brought to where the operator is looking, by useInView.
import type { RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

export function SecretValue({ id, value, copyLabel = 'Copy' }: { id: string; value: string; copyLabel?: string }) {
  const code = useRef<HTMLElement>(null);
  const [said, setSaid] = useState('');
  const copy = async () => {
    try {
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(value);
      setSaid('Copied.');
    } catch {
      // No clipboard for this page (not served over https, or refused): select the value for the operator to copy.
      if (code.current) getSelection()?.selectAllChildren(code.current);
      setSaid('Selected: press Ctrl+C (⌘C on a Mac) to copy it.');
    }
  };
  return (
    <>
      <code id={id} ref={code} class="wrap">
        {value}
      </code>
      <div class="actions">
        <button type="button" onClick={() => void copy()}>
          {copyLabel}
        </button>
        <span role="status">{said}</span>
      </div>
    </>
  );
}

/**
 * Scroll the element into view and focus it each time `shown` changes to a value: a secret appears where the operator
 * looks, wherever the button that made it was, and keyboard and screen-reader users land on it.
 */
export function useInView<T extends HTMLElement>(shown: unknown): RefObject<T> {
  const ref = useRef<T>(null);
  useEffect(() => {
    const el = ref.current;
    if (!shown || !el) return;
    el.scrollIntoView({ block: 'nearest' });
    el.focus({ preventScroll: true });
  }, [shown]);
  return ref;
}
