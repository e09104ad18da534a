// npm run bench:tasks, part 1 — upstream task queries per finished task: BENCH_QUERY_TASKS (default 2,000) /v1/videos
// tasks open at once on one DashScope account, each finishing after TOLLWAY_SIM_TASK_MS (default 60 s), followed until
// every one has ended, side by side in one run:
//  - the gateway as it is: the account's query rate (20/s at the simulator, as a real account) and list rounds;
//  - single-task polling, one query per task on its back-off schedule, against a simulator that sets no query limit
//    (list rounds and the budget off: how the gateway followed tasks before).
// Reports queries per finished task, list and single queries, throttled queries and the time until all had ended.
import { NODE_HEAP_FLAGS } from '../src/runtime/heap.ts';
import { ask, start } from './procs.ts';

const TASKS = Number(process.env.BENCH_QUERY_TASKS ?? 2000);
const SIM_TASK_MS = process.env.BENCH_QUERY_TASK_MS ?? '60000';
const LIMIT_S = Number(process.env.BENCH_QUERY_LIMIT_S ?? 900);

interface QueryStats {
  queries: number;
  single: number;
  lists: number;
  throttled: number;
  peakPerSecond: number;
  finished: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function run(label: string, simEnv: Record<string, string>, gwEnv: Record<string, string>): Promise<void> {
  const sim = await start('./sim-proc.ts', { TOLLWAY_SIM_TASK_MS: SIM_TASK_MS, ...simEnv });
  const gw = await start('./gateway-proc.ts', { BENCH_TARGET_PORT: String(sim.port), ...gwEnv }, [...NODE_HEAP_FLAGS]);
  try {
    // One task through the API (the template row), the rest as simulator tasks with matching fresh store rows.
    const r = await fetch(`http://127.0.0.1:${gw.port}/v1/videos`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gw.token}` },
      body: JSON.stringify({ model: 'wnx2.7-t2v', prompt: 'bench', seconds: 5 }),
    });
    if (r.status !== 200) throw new Error(`creation failed: ${r.status}`);
    const { ids } = await ask<{ ids: string[] }>(sim, 'seed-tasks', { n: TASKS - 1 });
    await ask(gw, 'seed-clone', { ids, fresh: true });
    const t0 = Date.now();
    let open = TASKS;
    while (open > 0 && Date.now() - t0 < LIMIT_S * 1000) {
      await sleep(2000);
      open = (await ask<{ n: number }>(gw, 'open-tasks')).n;
    }
    const s = await ask<QueryStats>(sim, 'query-stats');
    const seconds = (Date.now() - t0) / 1000;
    const ended = TASKS - open;
    console.log(
      `${label}: ${ended}/${TASKS} tasks ended in ${seconds.toFixed(0)} s (tasks run ${Number(SIM_TASK_MS) / 1000} s); ${s.queries} queries ` +
        `(${s.single} single, ${s.lists} list) → ${(s.queries / Math.max(1, s.finished)).toFixed(2)} queries per finished task; ` +
        `${s.throttled} throttled; at most ${s.peakPerSecond} in one second`,
    );
  } finally {
    for (const p of [gw, sim]) p.child.kill();
  }
}

console.log(
  `tollway bench:tasks (queries) — ${TASKS} open /v1/videos tasks on one DashScope account, node ${process.version}`,
);
await run('budget + list rounds     ', {}, {});
await run(
  'single-task polling      ',
  { TOLLWAY_SIM_QUERY_QPS: '0' },
  { TOLLWAY_DASHSCOPE_QUERY_QPS: '0', TOLLWAY_TASK_LIST_INTERVAL_MS: '0' },
);
