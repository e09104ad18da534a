// A real gateway (SQLite store in a temp dir, the production logger — asynchronous stdout, which the bench
// points at /dev/null) in its own process, with one DashScope channel pointing at the simulator and one token.
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// Only the key constant: importing simulator/index.ts would load the whole simulator into the gateway process.
import { DEFAULT_SIM_KEYS } from '../simulator/context.ts';
import { loadConfig } from '../src/config/config.ts';
import { startGateway } from '../src/process-life.ts';
import { ensureChannel } from '../src/core/admin/channels.ts';
import { createAccount, parseCreateAccount } from '../src/core/admin/accounts.ts';
import { createToken } from '../src/core/admin/tokens.ts';
import type { Budget } from '../src/metering/periods.ts';
import type { ChannelModelLimits } from '../src/store/repos/channels.ts';
import { tuneHeap } from '../src/runtime/heap.ts';
import { answerStats } from './proc-stats.ts';

const simUrl = `http://127.0.0.1:${process.env.BENCH_TARGET_PORT}`;
const dir = mkdtempSync(join(tmpdir(), 'tollway-bench-'));
// The SQLite thread switches, the heap growing percent and the task engine's settings pass through, to measure each
// configuration.
const passedKeys = [
  'TOLLWAY_DASHSCOPE_QUERY_QPS',
  'TOLLWAY_SQLITE_WRITER_THREAD',
  'TOLLWAY_SQLITE_CHECKPOINT_THREAD',
  'TOLLWAY_HEAP_GROWING_PERCENT',
  'TOLLWAY_QUEUE_WAIT_MS',
  'TOLLWAY_UPSTREAM_LIMITS_READ_MS',
  ...Object.keys(process.env).filter((k) => k.startsWith('TOLLWAY_TASK_')),
];
const passed = Object.fromEntries(passedKeys.flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])));
const config = loadConfig({
  DATABASE_URL: `sqlite:${join(dir, 'bench.db')}`,
  LOG_LEVEL: 'info',
  TOLLWAY_DATA_DIR: dir,
  ...passed,
});
// The same process-level tuning as `tollway serve` (src/main.ts), so the bench measures the deployed configuration.
tuneHeap(config.heapGrowingPercent);
const gw = await startGateway(config, {
  adminKey: 'bench-admin-key-0123456789',
  secret: 'bench-secret-0123456789abcdefghij',
});
await ensureChannel(gw.deps, 'sim', 'dashscope', simUrl, { apiKey: DEFAULT_SIM_KEYS.dashscopeApiKey });
// BENCH_MODEL_LIMITS (JSON, a channel's model_limits): limits stated on the channel, as `PATCH /admin/channels` states
// them.
if (process.env.BENCH_MODEL_LIMITS) {
  const sim = await gw.deps.repos.channels.findByName('sim');
  await gw.deps.repos.channels.update(sim!.id, {
    modelLimits: JSON.parse(process.env.BENCH_MODEL_LIMITS) as ChannelModelLimits,
  });
}
await gw.deps.channels.reload();
// BENCH_TOKEN=account-budgets: the token belongs to an account with a quota and budgets, and has budgets of its own,
// so every call reserves against both and moves the current periods' spend. BENCH_TOKEN=quota: a quota of its own
// only, so every call reserves (from an allowance) with no account or budget rows to move.
const withAccount = process.env.BENCH_TOKEN === 'account-budgets';
const withQuota = process.env.BENCH_TOKEN === 'quota';
const BIG = 10 ** 15;
const budgets: Budget[] = [
  { period: 'day', limit: BIG },
  { period: 'month', limit: BIG },
];
const account = withAccount
  ? await createAccount(gw.deps, { actor: 'cli' }, parseCreateAccount({ name: 'bench', quota: BIG, budgets }))
  : null;
const { secret } = await createToken(
  gw.deps,
  account
    ? { name: 'bench', quota: BIG, accountId: account.id, budgets }
    : withQuota
      ? { name: 'bench', quota: BIG }
      : { name: 'bench' },
);
const address = await gw.app.listen({ port: 0, host: '127.0.0.1' });
answerStats();
let pausedAt: number | null = null;
process.on('message', async (m: unknown) => {
  const type = (m as { type?: string })?.type;
  // bench:tasks pauses and resumes the task poller (paired rounds without and with the polling work).
  // While paused the schedule is held still (on resume every open task's next poll moves by the pause), so a
  // "with" round measures the steady polling work, not a catch-up the pause itself caused.
  if (type === 'poller-stop' || type === 'poller-start') {
    if (type === 'poller-stop') {
      await gw.poller?.stop();
      pausedAt = Date.now();
    } else {
      if (pausedAt !== null) {
        const by = Date.now() - pausedAt;
        await gw.deps.store.db
          .updateTable('tasks')
          .set((eb) => ({ next_poll_at: eb('next_poll_at', '+', by) }))
          .where('state', 'in', ['queued', 'in_progress'])
          .execute();
      }
      pausedAt = null;
      await gw.poller?.start();
    }
    process.send?.({ type });
    return;
  }
  // bench:tasks: open tasks cloned from one made through the API, each bound to a simulator task id.
  if (type === 'seed-clone') {
    const { ids, fresh } = m as { ids: string[]; fresh?: boolean };
    const pollMaxMs = config.tasks.pollMaxMs;
    const tpl = await gw.deps.store.db
      .selectFrom('tasks')
      .selectAll()
      .where('state', 'in', ['queued', 'in_progress'])
      .limit(1)
      .executeTakeFirstOrThrow();
    const now = Date.now();
    for (let i = 0; i < ids.length; i += 200) {
      const rows = ids.slice(i, i + 200).map((up, j) => ({
        ...tpl,
        id: `video_bench${String(i + j).padStart(8, '0')}${randomUUID().slice(0, 8)}`,
        upstream_task_id: up,
        request_id: `req_bench_${i + j}`,
        state: 'queued',
        upstream_status: 'PENDING',
        progress: 0,
        // A steady backlog: created over the last minutes (past the back-off ramp), next polls spread over the window.
        // `fresh`: created now, as a burst of creations would leave them.
        poll_attempts: fresh ? 0 : 6,
        lease_owner: null,
        lease_until: null,
        next_poll_at: fresh ? now : now + Math.floor(Math.random() * pollMaxMs),
        created_at: fresh ? now : now - Math.floor(Math.random() * 600_000),
        updated_at: now,
      }));
      await gw.deps.store.db.insertInto('tasks').values(rows).execute();
    }
    process.send?.({ type, n: ids.length });
    return;
  }
  // bench:tasks: how late the most overdue open task is (0 when none is due).
  if (type === 'poll-lag') {
    const due = await gw.deps.tasks.repo.nextDueAt();
    process.send?.({ type, lagMs: due === null ? 0 : Math.max(0, Date.now() - due) });
    return;
  }
  if (type === 'open-tasks') {
    const r = await gw.deps.store.db
      .selectFrom('tasks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('state', 'in', ['submitting', 'queued', 'in_progress'])
      .executeTakeFirst();
    process.send?.({ type, n: Number(r?.n ?? 0) });
    return;
  }
  if (type !== 'ledger') return;
  await gw.deps.meter.flush();
  await gw.deps.requestLog.flush();
  const r = await gw.deps.store.db
    .selectFrom('ledger')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  process.send?.({ type: 'ledger', rows: Number(r?.n ?? 0) });
});
process.send?.({ type: 'ready', port: Number(new URL(address).port), token: secret });
