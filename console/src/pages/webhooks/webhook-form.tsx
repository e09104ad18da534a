// Create an alert webhook: its URL and the events it wants (every event ticked at first). Its signing secret is shown
// right under the button that created it (new-secret.tsx).
import { useState } from 'preact/hooks';
import { call } from '../../api.ts';
import { errorText } from '../../use-load.ts';
import { EVENTS, EventBoxes } from './event-boxes.tsx';
import { NewSecret } from './new-secret.tsx';

export interface Webhook {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  description: string | null;
  created_at: number;
}

export function WebhookForm({ onCreated }: { onCreated: (w: Webhook) => void }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<string[]>(EVENTS.map(([e]) => e));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [made, setMade] = useState<{ id: string; secret: string } | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setMade(null);
    setBusy(true);
    try {
      const w = await call<Webhook & { secret: string }>('/admin/webhooks', {
        method: 'POST',
        json: { url: url.trim(), events, ...(description.trim() ? { description: description.trim() } : {}) },
      });
      setMade({ id: w.id, secret: w.secret });
      onCreated(w);
      setUrl('');
      setDescription('');
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
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
      <EventBoxes events={events} onChange={setEvents} />
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
      {made && <NewSecret id={made.id} secret={made.secret} onDone={() => setMade(null)} />}
    </form>
  );
}
