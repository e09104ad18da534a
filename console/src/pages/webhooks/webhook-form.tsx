// Create an alert webhook: its URL and the events it wants (every event ticked at first).
import { useState } from 'preact/hooks';
import { call } from '../../api.ts';
import { errorText } from '../../use-load.ts';

export interface Webhook {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  description: string | null;
  created_at: number;
}

export const EVENTS: Array<[string, string]> = [
  ['spend.threshold', 'Spending passed 50/80/100 % of a quota'],
  ['breaker.opened', 'A channel breaker opened'],
  ['breaker.closed', 'A channel breaker closed'],
  ['tasks.failure_rate', 'Task failure rate over the threshold'],
  ['hold.reaped', 'A reservation or hold was reaped'],
];

export function WebhookForm({ onCreated }: { onCreated: (w: Webhook & { secret: string }) => void }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<string[]>(EVENTS.map(([e]) => e));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      onCreated(
        await call<Webhook & { secret: string }>('/admin/webhooks', {
          method: 'POST',
          json: { url: url.trim(), events, ...(description.trim() ? { description: description.trim() } : {}) },
        }),
      );
      setUrl('');
      setDescription('');
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const toggle = (ev: string) => setEvents(events.includes(ev) ? events.filter((x) => x !== ev) : [...events, ev]);
  return (
    <form class="form-grid" onSubmit={submit} aria-labelledby="wh-title" data-write="webhooks">
      <h2 id="wh-title">Create a webhook</h2>
      <div>
        <label for="wh-url">URL</label>
        <input
          id="wh-url"
          type="url"
          required
          maxLength={2000}
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
      </div>
      <div>
        <label for="wh-description">Description (optional)</label>
        <input
          id="wh-description"
          maxLength={500}
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
      </div>
      <fieldset>
        <legend>Events</legend>
        {EVENTS.map(([ev, label]) => (
          <label key={ev} class="check">
            <input type="checkbox" checked={events.includes(ev)} onChange={() => toggle(ev)} /> {label} (
            <code>{ev}</code>)
          </label>
        ))}
      </fieldset>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="actions">
        <button type="submit" disabled={busy}>
          Create webhook
        </button>
      </div>
    </form>
  );
}
