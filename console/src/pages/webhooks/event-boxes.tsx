// The events a webhook wants, as checkboxes (the create and edit forms).
export const EVENTS: Array<[string, string]> = [
  ['spend.threshold', 'Spending passed 50/80/100 % of a quota or budget'],
  ['limit.reached', 'Calls refused by a quota or budget'],
  ['breaker.opened', 'A channel breaker opened'],
  ['breaker.closed', 'A channel breaker closed'],
  ['tasks.failure_rate', 'Task failure rate over the threshold'],
  ['hold.reaped', 'A reservation or hold was reaped'],
];

export function EventBoxes({ events, onChange }: { events: string[]; onChange: (events: string[]) => void }) {
  const toggle = (ev: string) => onChange(events.includes(ev) ? events.filter((x) => x !== ev) : [...events, ev]);
  return (
    <fieldset>
      <legend>Events</legend>
      {EVENTS.map(([ev, label]) => (
        <label key={ev} class="check">
          <input type="checkbox" checked={events.includes(ev)} onChange={() => toggle(ev)} /> {label} (<code>{ev}</code>
          )
        </label>
      ))}
    </fieldset>
  );
}
