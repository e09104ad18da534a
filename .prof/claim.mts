import { openStore } from '/work/wt/taskscale/src/store/store.ts';
import { TasksRepo } from '/work/wt/taskscale/src/store/repos/tasks.ts';
import { mkdtempSync } from 'node:fs'; import { tmpdir } from 'node:os'; import { join } from 'node:path';
const dir = mkdtempSync(join(tmpdir(), 'tw-claim-'));
const s = await openStore(`sqlite:${join(dir, 'x.db')}`, { checkpointThread: true });
const repo = new TasksRepo(s.db, s.dialect);
const now = Date.now();
for (let i = 0; i < 10000; i += 500) await s.db.insertInto('tasks').values(Array.from({ length: 500 }, (_, j) => ({ id: `video_${i + j}_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa`, family: 'b', kind: 'dashscope-video', token_id: 'tok_x', model: 'wnx2.7-t2v', billing_model: 'wnx2.7-t2v', upstream_model: 'wan2.7-t2v', channel_id: 'ch', upstream_task_id: `up-${i + j}-0000-0000-000000000000`, state: 'queued', upstream_status: 'PENDING', progress: 0, request: JSON.stringify({ prompt: 'x'.repeat(200), seconds: 5, size: '1280x720' }), result: null, usage: '{"kind":"video","outputSeconds":5,"tier":"720p"}', error: null, external_task_id: null, callback_url: null, session_id: null, request_id: `req_${i + j}`, upstream_request_id: 'rid', tier: '720p', hold_amount: 3000000, next_poll_at: now - 1000 + Math.floor(Math.random() * 1000), poll_attempts: 6, lease_owner: null, lease_until: null, created_at: now, updated_at: now, finished_at: null, checked_at: null }))).execute();
for (const n of [50, 100, 200]) {
  const ts: number[] = []; const us: number[] = [];
  for (let k = 0; k < 10; k++) {
    const t0 = process.hrtime.bigint();
    const got = await repo.claimDue('inst_a', 60000, n, { baseMs: 1000, maxMs: 30000 });
    const t1 = process.hrtime.bigint();
    await repo.unleaseMany(got.map((t) => t.id), 'inst_a');
    const t2 = process.hrtime.bigint();
    ts.push(Number(t1 - t0) / 1e3); us.push(Number(t2 - t1) / 1e3);
  }
  ts.sort((a, b) => a - b); us.sort((a, b) => a - b);
  console.log(n, 'claim µs median', ts[5], 'per row', (ts[5]! / n).toFixed(1), 'unlease µs median', us[5], 'per row', (us[5]! / n).toFixed(1));
}
import { sql } from 'kysely';
for (const variant of ['full', 'ids', 'noreturn', 'select-only']) {
  const ts: number[] = [];
  for (let k = 0; k < 10; k++) {
    const n2 = Date.now();
    await s.db.updateTable('tasks').set({ next_poll_at: n2 - 500, lease_until: null }).execute();
    const t0 = process.hrtime.bigint();
    const sub = `SELECT id FROM tasks WHERE state IN ('submitting', 'queued', 'in_progress') AND next_poll_at <= ${n2} AND (lease_until IS NULL OR lease_until < ${n2}) ORDER BY next_poll_at LIMIT 200`;
    if (variant === 'select-only') await sql.raw(sub).execute(s.db);
    else await sql.raw(`UPDATE tasks SET lease_owner = 'a', lease_until = ${n2 + 60000}, checked_at = ${n2}, poll_attempts = poll_attempts + 1, next_poll_at = ${n2} + 30000 WHERE id IN (${sub}) ${variant === 'full' ? 'RETURNING *' : variant === 'ids' ? 'RETURNING id' : ''}`).execute(s.db);
    ts.push(Number(process.hrtime.bigint() - t0) / 1e3);
  }
  ts.sort((a, b) => a - b);
  console.log(variant, 'median µs', ts[5]);
}
await s.close();
