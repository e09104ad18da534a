// Edit a webhook: its URL, the events it wants and whether it is enabled (PATCH, only what changed). Opened by a
// row's Edit button: scrolled into view with its URL field focused.
import { useEffect, useRef, useState } from 'preact/hooks';
import { call } from '../../api.ts';
import { errorText } from '../../use-load.ts';
import { EventBoxes } from './event-boxes.tsx';
import type { Webhook } from './webhook-form.tsx';

export function WebhookEdit({ hook, onDone }: { hook: Webhook; onDone: (saved: boolean) => void }) {
  const [url, setUrl] = useState(hook.url);
  const [events, setEvents] = useState<string[]>(hook.events);
  const [enabled, setEnabled] = useState(hook.enabled);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => {
    form.current?.scrollIntoView({ block: 'nearest' });
    first.current?.focus({ preventScroll: true });
  }, [hook.id]);
  const submit = async (e: Event) => {
    e.preventDefault();
    const same = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));
    const patch = {
      ...(url.trim() !== hook.url ? { url: url.trim() } : {}),
      ...(!same(events, hook.events) ? { events } : {}),
      ...(enabled !== hook.enabled ? { enabled } : {}),
    };
    if (Object.keys(patch).length === 0) return onDone(false);
    setError(null);
    setBusy(true);
    try {
      await call(`/admin/webhooks/${encodeURIComponent(hook.id)}`, { method: 'PATCH', json: patch });
      onDone(true);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form ref={form} class="card form-grid" onSubmit={submit} aria-labelledby="wh-edit-title" data-write="webhooks">
      <h2 id="wh-edit-title">
        Edit webhook <code>{hook.id}</code>
      </h2>
      <div>
        <label for="wh-edit-url">Webhook URL</label>
        <input
          ref={first}
          id="wh-edit-url"
          type="url"
          required
          maxLength={2000}
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
      </div>
      <EventBoxes events={events} onChange={setEvents} />
      <label class="check">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} /> Enabled
      </label>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="actions">
        <button type="submit" disabled={busy}>
          Save webhook
        </button>
        <button type="button" class="quiet" onClick={() => onDone(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
