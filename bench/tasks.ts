// npm run bench:tasks — the task engine under a backlog: the simulator (tasks that run for minutes,
// TOLLWAY_SIM_TASK_MS) and the gateway (default task settings) in their own processes; BENCH_TASKS (default
// 10,000) open /v1/videos tasks are seeded (BENCH_API_TASKS through the API, the rest as simulator tasks with
// matching store rows, as a steady backlog: past the back-off ramp, next polls spread over the window), then, side
// by side in one run:
//  1. poll cost: with no requests, the gateway's CPU per upstream status query while the backlog is polled;
//  2. staleness: under chat load, the longest time any open task went without a status query (as the simulator
//     saw it), against the back-off window (TOLLWAY_TASK_POLL_MAX_MS, the longest back-off, + one tick);
//  3. chat with the backlog vs without: paired rounds at 64 connections, the poller paused (no polling work at
//     all) then running (or the other order); the schedule is held still during a pause, so a "with" round sees
//     the steady polling rate, not a catch-up. Ratios of throughput, p99 and gateway CPU per chat request (polling work
//     included) per round, and their medians.
import { Pool } from 'undici';
import { NODE_HEAP_FLAGS } from '../src/runtime/heap.ts';
import { quantile, timedRun } from './latencies.ts';
import { ask, chatBody, start, type Proc } from './procs.ts';

const TASKS = Number(process.env.BENCH_TASKS ?? 10_000);
const API_TASKS = Number(process.env.BENCH_API_TASKS ?? 500);
const SIM_TASK_MS = process.env.TOLLWAY_SIM_TASK_MS ?? String(20 * 60_000);
const POLL_MAX_MS = Number(process.env.TOLLWAY_TASK_POLL_MAX_MS ?? 30_000);
const TICK_MS = Number(process.env.TOLLWAY_TASK_TICK_MS ?? 500);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP ?? 6);
/** Time after seeding for every task to reach the longest back-off step (2 + 4 + 8 + 16 + 30 s at the defaults). */
const RAMP_SECONDS = Number(process.env.BENCH_RAMP ?? 45);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE ?? 15);
/** The staleness window: at least two full back-off periods, under chat load. */
const STALE_SECONDS = Number(process.env.BENCH_STALE ?? Math.ceil((2.2 * POLL_MAX_MS) / 1000));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const ROUND_SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 5);
const CONNS = 64;

interface Stats {
  cpuUs: number;
  mainCpuUs: number;
  peakRss: number;
}
interface Gaps {
  open: number;
  queries: number;
  worstGapMs: number;
}
interface Row {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Gateway CPU (all threads) per answered request, polling work included. */
  cpuUs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function chat(gw: Proc, seconds: number): Promise<Row> {
  const before = await ask<Stats>(gw, 'stats');
  const { result: r, sorted } = await timedRun({
    url: `http://127.0.0.1:${gw.port}/v1/chat/completions`,
    method: 'POST',
    connections: CONNS,
    duration: seconds,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${gw.token}` },
    body: chatBody('qwx3.7-plus', false),
  });
  const after = await ask<Stats>(gw, 'stats');
  const ok = Math.max(1, r.requests.total - r.non2xx);
  return {
    rps: r.requests.average,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    errors: r.errors + r.non2xx + r.timeouts,
    cpuUs: (after.cpuUs - before.cpuUs) / ok,
  };
}

/** BENCH_API_TASKS creations through the API (32 at a time), as clients would make them. */
async function seedApi(gw: Proc, count: number): Promise<number> {
  const pool = new Pool(`http://127.0.0.1:${gw.port}`, { connections: 32 });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${gw.token}` };
  let next = 0;
  let failed = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const res = await pool.request({
        method: 'POST',
        path: '/v1/videos',
        headers,
        body: JSON.stringify({ model: 'wnx2.7-t2v', prompt: `bench task ${i}`, seconds: 5 }),
      });
      await res.body.dump();
      if (res.statusCode !== 200) failed++;
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  await pool.close();
  return failed;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const fmt = (r: Row) =>
  `${Math.round(r.rps)} req/s p50 ${r.p50.toFixed(1)} ms p99 ${r.p99.toFixed(1)} ms err ${r.errors} cpu ${Math.round(r.cpuUs)} µs/req`;

async function main(): Promise<void> {
  const t0 = Date.now();
  const sim = await start('./sim-proc.ts', { TOLLWAY_SIM_TASK_MS: SIM_TASK_MS });
  const gw = await start('./gateway-proc.ts', { BENCH_TARGET_PORT: String(sim.port) }, [...NODE_HEAP_FLAGS]);
  const cpus = (await import('node:os')).cpus().length;
  console.log(
    `tollway bench:tasks — ${TASKS} open /v1/videos tasks of ${Number(SIM_TASK_MS) / 60_000} min, poll back-off up to ${POLL_MAX_MS / 1000} s, node ${process.version}, ${cpus} CPUs`,
  );
  await chat(gw, WARMUP_SECONDS);

  // Seeding: BENCH_API_TASKS through POST /v1/videos; the rest as simulator tasks plus matching rows cloned from
  // one of those (a creation through the API costs the gateway and simulator far more than a poll does).
  const s0 = Date.now();
  const viaApi = Math.min(TASKS, API_TASKS);
  const failed = await seedApi(gw, viaApi);
  const apiSeconds = (Date.now() - s0) / 1000;
  const { ids } = await ask<{ ids: string[] }>(sim, 'seed-tasks', { n: TASKS - viaApi });
  await ask(gw, 'seed-clone', { ids });
  console.log(
    `seeded ${viaApi - failed} tasks through POST /v1/videos in ${apiSeconds.toFixed(1)} s (${failed} failed) and ${ids.length} as simulator tasks + store rows ` +
      `in ${((Date.now() - s0) / 1000 - apiSeconds).toFixed(1)} s`,
  );
  await sleep(RAMP_SECONDS * 1000);

  // 1. CPU per status query, no requests.
  const g0 = await ask<Gaps>(sim, 'task-gaps');
  const c0 = await ask<Stats>(gw, 'stats');
  await sleep(IDLE_SECONDS * 1000);
  const c1 = await ask<Stats>(gw, 'stats');
  const g1 = await ask<Gaps>(sim, 'task-gaps');
  const polls = g1.queries - g0.queries;
  console.log(
    `idle ${IDLE_SECONDS} s: ${(polls / IDLE_SECONDS).toFixed(0)} status queries/s, gateway cpu ${polls ? Math.round((c1.cpuUs - c0.cpuUs) / polls) : '-'} µs per query ` +
      `(main thread ${polls ? Math.round((c1.mainCpuUs - c0.mainCpuUs) / polls) : '-'} µs), ${(((c1.cpuUs - c0.cpuUs) / (IDLE_SECONDS * 1e6)) * 100).toFixed(1)}% of a core`,
  );

  // 2. Staleness under chat load.
  await ask<Gaps>(sim, 'task-gaps-reset');
  const q0 = (await ask<Gaps>(sim, 'task-gaps')).queries;
  // The gateway's own view meanwhile: how overdue its most overdue task is, sampled each second.
  let worstLagMs = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      worstLagMs = Math.max(worstLagMs, (await ask<{ lagMs: number }>(gw, 'poll-lag')).lagMs);
      await sleep(1000);
    }
  })();
  const loaded = await chat(gw, STALE_SECONDS);
  sampling = false;
  await sampler;
  const g2 = await ask<Gaps>(sim, 'task-gaps');
  const window = POLL_MAX_MS + TICK_MS;
  console.log(
    `under chat load ${STALE_SECONDS} s: ${fmt(loaded)}; ${((g2.queries - q0) / STALE_SECONDS).toFixed(0)} status queries/s; most overdue task (sampled each second) ${(worstLagMs / 1000).toFixed(1)} s late`,
  );
  console.log(
    `staleness: ${g2.open} open tasks, worst time without a status query ${(g2.worstGapMs / 1000).toFixed(1)} s ` +
      `(back-off window ${(window / 1000).toFixed(1)} s) → ${g2.worstGapMs <= window ? 'every open task checked within its window' : 'SOME TASK WAITED LONGER THAN ITS WINDOW'}`,
  );

  // 3. Paired rounds: poller paused (no backlog work) vs running.
  const tpRatios: number[] = [];
  const p99Ratios: number[] = [];
  const cpuRatios: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const withoutFirst = i % 2 === 0;
    const without = async () => {
      await ask(gw, 'poller-stop');
      const r = await chat(gw, ROUND_SECONDS);
      return r;
    };
    const withBacklog = async () => {
      await ask(gw, 'poller-start');
      await sleep(1000);
      return chat(gw, ROUND_SECONDS);
    };
    const a = withoutFirst ? await without() : await withBacklog();
    const b = withoutFirst ? await withBacklog() : await without();
    const [wo, wi] = withoutFirst ? [a, b] : [b, a];
    tpRatios.push(wi.rps / wo.rps);
    p99Ratios.push(wi.p99 / wo.p99);
    cpuRatios.push(wi.cpuUs / wo.cpuUs);
    console.log(
      `round ${i + 1} (${withoutFirst ? 'without first' : 'with first'}): without ${fmt(wo)} | with backlog ${fmt(wi)} → ` +
        `throughput ${pct(wi.rps / wo.rps)}, p99 ${(wi.p99 / wo.p99).toFixed(2)}×, cpu/req ${(wi.cpuUs / wo.cpuUs).toFixed(2)}×`,
    );
  }
  await ask(gw, 'poller-start');
  const st = await ask<Stats>(gw, 'stats');
  console.log('\nsummary');
  console.log(
    `chat c=${CONNS} with ${TASKS} open tasks vs without: throughput median ${pct(median(tpRatios))} (target ≥ 90%), p99 median ${median(p99Ratios).toFixed(2)}× (target ≤ 1.10×), gateway cpu per chat request (polling included) median ${median(cpuRatios).toFixed(2)}×`,
  );
  console.log(
    `worst staleness ${(g2.worstGapMs / 1000).toFixed(1)} s vs back-off window ${(window / 1000).toFixed(1)} s; gateway cpu per status query ${polls ? Math.round((c1.cpuUs - c0.cpuUs) / polls) : '-'} µs`,
  );
  console.log(
    `gateway peak RSS ${(st.peakRss / 1048576).toFixed(0)} MB; total bench time ${((Date.now() - t0) / 1000).toFixed(0)} s`,
  );
  for (const p of [gw, sim]) p.child.kill();
}

await main();
