// One async task (GET /admin/tasks/{id}): its facts, its timeline — every state change, the charge with its ledger
// line, the hold released — its ledger lines, and the finished video played through GET /admin/tasks/{id}/content.
// An open task is reloaded every few seconds, so the timeline grows as the task runs.
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api.ts';
import { num, time, units } from '../format.ts';
import { useLoad } from '../use-load.ts';
import type { AdminTaskDetail as TaskDetailData, TaskEvent } from '../types.ts';
import { LedgerTable } from '../ledger-table.tsx';

const OPEN = new Set(['waiting', 'submitting', 'queued', 'in_progress']);
const RELOAD_MS = 3000;

/** What an event is called on the timeline. */
const EVENT_NAMES: Record<string, string> = {
  created: 'Created',
  submitted: 'Submitted upstream',
  recovered: 'Recovered after a lost answer',
  status: 'Upstream status',
  succeeded: 'Succeeded',
  failed: 'Failed',
  cancelled: 'Cancelled',
  charged: 'Charged',
  hold_released: 'Hold released',
};

function eventAmount(e: TaskEvent): string {
  if (e.amount === null) return '';
  if (e.kind === 'charged') return `${units(e.amount)}${e.ledger_id !== null ? ` (ledger line ${e.ledger_id})` : ''}`;
  if (e.kind === 'submitted') return `${units(e.amount)} held`;
  return units(e.amount);
}

/** The timeline as an ordered list: a grid of columns on a wide screen, one stacked block per event on a phone. */
function Timeline({ events }: { events: TaskEvent[] }) {
  return (
    <>
      <p class="muted" id="task-timeline-note">
        {events.length} event{events.length === 1 ? '' : 's'}, oldest first: time, event, state from → to, detail,
        amount
      </p>
      <ol id="task-timeline" class="timeline" aria-describedby="task-timeline-note">
        {events.map((e) => (
          <li key={e.id} data-kind={e.kind}>
            <time class="at" dateTime={new Date(e.at).toISOString()}>
              {time(e.at)}
            </time>
            <span class="what">{EVENT_NAMES[e.kind] ?? e.kind}</span>
            <span class="move">{e.to === null ? '' : `${e.from ?? '—'} → ${e.to}`}</span>
            <span class="detail">{e.detail ?? ''}</span>
            <span class="amount">{eventAmount(e)}</span>
          </li>
        ))}
      </ol>
    </>
  );
}

export function TaskDetail({ taskId }: { taskId: string }) {
  const task = useLoad(() => call<TaskDetailData>(`/admin/tasks/${encodeURIComponent(taskId)}`), [taskId]);
  const [playing, setPlaying] = useState(false);
  const t = task.data;
  const open = t !== null && OPEN.has(t.state);
  useEffect(() => {
    if (!open) return;
    const timer = setInterval(task.reload, RELOAD_MS);
    return () => clearInterval(timer);
  }, [open, task.reload]);
  return (
    <section>
      <p>
        <a href="#/tasks">← Tasks</a>
      </p>
      <h1 tabIndex={-1}>
        Task <code class="wrap">{taskId}</code>
      </h1>
      {task.error && (
        <p role="alert" class="error">
          {task.error}
        </p>
      )}
      {task.loading && !t && <p>Loading…</p>}
      {t && (
        <>
          <div class="card">
            <dl class="facts">
              <dt>State</dt>
              <dd>
                <span
                  class={`pill ${t.state === 'succeeded' ? 'active' : t.state === 'failed' || t.state === 'cancelled' ? 'revoked' : ''}`}
                >
                  {t.state}
                </span>
                {t.progress !== null && open ? ` ${num(t.progress)} %` : ''}
                {t.error && (
                  <div class="error">
                    {t.error.code}: {t.error.message}
                  </div>
                )}
              </dd>
              <dt>Model</dt>
              <dd>
                {t.model}{' '}
                <span class="muted">
                  ({t.family} {t.kind})
                </span>
              </dd>
              <dt>Token</dt>
              <dd>
                <code>{t.token_id}</code>
              </dd>
              <dt>Channel</dt>
              <dd>
                <code>{t.channel_id}</code>
              </dd>
              {t.slot_queue && (
                <>
                  <dt>Parallel-task queue</dt>
                  <dd>
                    <code>{t.slot_queue.account}</code>, {t.slot_queue.model}
                    {t.state === 'waiting' && <span class="muted"> (waiting for a free slot)</span>}
                  </dd>
                </>
              )}
              <dt>Upstream task</dt>
              <dd>
                <code class="wrap">{t.upstream_task_id ?? '—'}</code>
              </dd>
              <dt>Request</dt>
              <dd>
                <a href={`#/logs/${encodeURIComponent(t.request_id)}`}>
                  <code class="wrap">{t.request_id}</code>
                </a>
              </dd>
              <dt>Created</dt>
              <dd>{time(t.created_at)}</dd>
              <dt>Finished</dt>
              <dd>{t.finished_at ? time(t.finished_at) : 'not yet'}</dd>
              <dt>Held</dt>
              <dd>{units(t.hold_amount)}</dd>
              <dt>Charged</dt>
              <dd id="task-charged">{units(t.charged)}</dd>
            </dl>
            <p class="actions">
              <button type="button" class="quiet" onClick={task.reload}>
                Refresh
              </button>
              {t.state === 'succeeded' && (
                <button
                  type="button"
                  class="quiet"
                  aria-expanded={playing}
                  onClick={() => setPlaying(!playing)}
                  aria-label={`Play the video of task ${t.id}`}
                >
                  {playing ? 'Hide' : 'Play'}
                </button>
              )}
            </p>
            {playing && (
              // biome-ignore lint/a11y/useMediaCaption: a generated video has no speech, no caption track
              <video
                class="player"
                controls
                preload="metadata"
                src={`/admin/tasks/${encodeURIComponent(t.id)}/content`}
                aria-label={`Video of task ${t.id}`}
              />
            )}
          </div>
          <h2>Timeline</h2>
          <Timeline events={t.events} />
          <h2>Ledger lines</h2>
          {t.ledger.length === 0 ? (
            <p class="card">Nothing charged{open ? ' yet: a task is charged once, when it succeeds' : ''}.</p>
          ) : (
            <LedgerTable
              id="task-ledger"
              lines={t.ledger}
              caption={`${t.ledger.length} line${t.ledger.length === 1 ? '' : 's'}, total ${units(t.charged)} (micro-units per unit in unit prices)`}
            />
          )}
        </>
      )}
    </section>
  );
}
