// Async tasks (videos, family A): every token's, newest first, by state; cancel an open one; its charge from the
// ledger (by task id); play a finished one (streamed through GET /admin/tasks/{id}/content). A task's id opens its
// detail page (task-detail.tsx): the timeline of its state changes and its charge.
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { call, qs } from '../api.ts';
import { num, time, units } from '../format.ts';
import { errorText, useLoad } from '../use-load.ts';
import { Pager, usePaging } from '../pager.tsx';
import type { Task } from '../types.ts';

// waiting: held in the gateway for a free parallel-task slot of its upstream account (shown to the client as
// submitted).
const STATES = ['', 'waiting', 'submitting', 'queued', 'in_progress', 'succeeded', 'failed', 'cancelled'];
const OPEN = new Set(['waiting', 'submitting', 'queued', 'in_progress']);

function Charge({ taskId }: { taskId: string }) {
  const charged = useLoad(
    () =>
      call<{ data: Array<{ amount: number }> }>(`/admin/ledger${qs({ task_id: taskId, limit: 10 })}`).then((r) =>
        r.data.reduce((s, l) => s + l.amount, 0),
      ),
    [taskId],
  );
  return <>{charged.data === null ? '…' : units(charged.data)}</>;
}

export function Tasks() {
  const [state, setState] = useState('');
  const paging = usePaging();
  const cursor = paging.cursor;
  const tasks = useLoad(
    () =>
      call<{ data: Task[]; has_more: boolean; next_cursor?: string }>(
        `/admin/tasks${qs({ state, cursor, limit: 50 })}`,
      ),
    [state, cursor],
  );
  const [error, setError] = useState<string | null>(null);
  const [playing, setPlaying] = useState<string | null>(null);
  const cancel = async (t: Task) => {
    setError(null);
    try {
      await call(`/admin/tasks/${encodeURIComponent(t.id)}/cancel`, { method: 'POST' });
      tasks.reload();
    } catch (e) {
      setError(errorText(e));
    }
  };
  const data = tasks.data?.data ?? [];
  return (
    <section>
      <h1 tabIndex={-1}>Tasks</h1>
      <div class="toolbar">
        <label for="task-state">State</label>
        <select
          id="task-state"
          value={state}
          onChange={(e) => {
            paging.reset();
            setState(e.currentTarget.value);
          }}
        >
          {STATES.map((s) => (
            <option key={s} value={s}>
              {s || 'any'}
            </option>
          ))}
        </select>
        <button type="button" class="quiet" onClick={tasks.reload}>
          Refresh
        </button>
      </div>
      {(tasks.error || error) && (
        <p role="alert" class="error">
          {tasks.error ?? error}
        </p>
      )}
      <div class="table-wrap">
        <table>
          <caption>{tasks.loading ? 'Loading…' : `${data.length} task${data.length === 1 ? '' : 's'}`}</caption>
          <thead>
            <tr>
              <th scope="col">Created</th>
              <th scope="col">Task</th>
              <th scope="col">Model</th>
              <th scope="col">State</th>
              <th scope="col">Timeline</th>
              <th scope="col" class="num">
                Held
              </th>
              <th scope="col" class="num">
                Charged
              </th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {data.map((t) => (
              <Fragment key={t.id}>
                <tr>
                  <td>{time(t.created_at)}</td>
                  <td>
                    <a href={`#/tasks/${encodeURIComponent(t.id)}`} aria-label={`Task ${t.id}: timeline and charge`}>
                      <code>{t.id}</code>
                    </a>
                    <br />
                    <span class="muted">
                      {t.family} {t.kind}, token <code>{t.token_id}</code>
                    </span>
                  </td>
                  <td>{t.model}</td>
                  <td>
                    <span
                      class={`pill ${t.state === 'succeeded' ? 'active' : t.state === 'failed' || t.state === 'cancelled' ? 'revoked' : ''}`}
                    >
                      {t.state}
                    </span>
                    {t.progress !== null && OPEN.has(t.state) ? ` ${num(t.progress)} %` : ''}
                    {t.state === 'waiting' && t.slot_queue && (
                      <div class="muted">
                        for a slot of {t.slot_queue.account}, {t.slot_queue.model}
                      </div>
                    )}
                    {t.error && (
                      <div class="error">
                        {t.error.code}: {t.error.message}
                      </div>
                    )}
                  </td>
                  <td>
                    created {time(t.created_at)}
                    <br />
                    {t.finished_at ? `finished ${time(t.finished_at)}` : `updated ${time(t.updated_at)}`}
                  </td>
                  <td class="num">{units(t.hold_amount)}</td>
                  <td class="num">
                    <Charge taskId={t.id} />
                  </td>
                  <td>
                    <span class="actions">
                      <a href={`#/logs/${encodeURIComponent(t.request_id)}`}>Request</a>
                      {OPEN.has(t.state) && (
                        <button
                          data-write="tasks"
                          type="button"
                          class="quiet"
                          onClick={() => void cancel(t)}
                          aria-label={`Cancel task ${t.id}`}
                        >
                          Cancel
                        </button>
                      )}
                      {t.state === 'succeeded' && (
                        <button
                          type="button"
                          class="quiet"
                          aria-expanded={playing === t.id}
                          onClick={() => setPlaying(playing === t.id ? null : t.id)}
                          aria-label={`Play the video of task ${t.id}`}
                        >
                          {playing === t.id ? 'Hide' : 'Play'}
                        </button>
                      )}
                    </span>
                  </td>
                </tr>
                {playing === t.id && (
                  <tr>
                    <td colSpan={8}>
                      {/* biome-ignore lint/a11y/useMediaCaption: a generated video has no speech and the upstream gives no caption track */}
                      <video
                        class="player"
                        controls
                        preload="metadata"
                        src={`/admin/tasks/${encodeURIComponent(t.id)}/content`}
                        aria-label={`Video of task ${t.id}`}
                      />
                    </td>
                  </tr>
                )}
              </Fragment>
            ))}
          </tbody>
        </table>
      </div>
      <Pager paging={paging} hasMore={tasks.data?.has_more ?? false} nextCursor={tasks.data?.next_cursor} />
    </section>
  );
}
