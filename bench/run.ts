// npm run bench — simulator (no delay), a bare pass-through proxy and the gateway, each in its own process;
// autocannon drives load directly at the simulator, through the proxy and through the gateway.
// Prints req/s, p50/p99, gateway/direct and gateway/proxy ratios, added p50, gateway CPU µs per request and peak RSS,
// the median gateway/proxy ratio of paired back-to-back rounds for non-streaming chat, and the median of the
// gateway − proxy added latency at one connection over rounds of the three targets back to back.
import { DEFAULT_SIM_KEYS } from '../simulator/index.ts';
import { NODE_HEAP_FLAGS } from '../src/runtime/heap.ts';
import { ask, chatBody, embedBody, start } from './procs.ts';
import {
  fmt,
  load,
  median,
  medianRow,
  type Row,
  SECONDS,
  SKELETON_WHAT,
  type Skeleton,
  skeletonsOf,
  sequential,
  type Stats,
  type Target,
} from './run-load.ts';

/** Paired proxy/gateway rounds for non-streaming chat at 64 connections (BENCH_ROUNDS, default 3, 4 s each). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ROUND_SECONDS = 4;
/** Seconds per target in each latency round at one connection (as many rounds as BENCH_ROUNDS, at least one). */
const LATENCY_ROUND_SECONDS = 2;
/**
 * Warm-up per target before anything is measured (BENCH_WARMUP seconds, default 6, at 64 connections). Throughput
 * is measured in steady state: the gateway's JIT keeps compiling (on V8's background threads) for several seconds
 * into load, while the dozen-line proxy is compiled in moments.
 */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP ?? 6);

async function main(): Promise<void> {
  const t0 = Date.now();
  const sim = await start('./sim-proc.ts');
  const proxy = await start('./bare-proxy.ts', { BENCH_TARGET_PORT: String(sim.port) });
  // The gateway with the node flags `npm start` uses; the simulator and the bare proxy run on defaults.
  const gw = await start('./gateway-proc.ts', { BENCH_TARGET_PORT: String(sim.port) }, [...NODE_HEAP_FLAGS]);
  // BENCH_SKELETON=1: the lean skeleton; =durable: the skeleton plus the work no gateway here can skip (its file);
  // =both: the two.
  const skeletonKinds = skeletonsOf(process.env.BENCH_SKELETON);
  const skeletons: Target[] = [];
  for (const name of skeletonKinds) {
    const proc = await start('./lean-skeleton.ts', {
      BENCH_TARGET_PORT: String(sim.port),
      SKELETON_DURABLE: name === 'floor' ? '1' : '0',
    });
    // A skeleton speaks the upstream's path and only takes non-streaming chat.
    skeletons.push({ name, port: proc.port, auth: proc.token!, model: () => 'qwx3.7-plus', proc });
  }
  const up = (k: 'chat' | 'embed') => (k === 'chat' ? 'qwen3.7-plus' : 'text-embedding-v4');
  const targets: Target[] = [
    { name: 'direct', port: sim.port, auth: DEFAULT_SIM_KEYS.dashscopeApiKey, model: up },
    { name: 'proxy', port: proxy.port, auth: DEFAULT_SIM_KEYS.dashscopeApiKey, model: up, proc: proxy },
    {
      name: 'gateway',
      port: gw.port,
      auth: gw.token!,
      model: (k) => (k === 'chat' ? 'qwx3.7-plus' : 'text-embedding-v4'),
      proc: gw,
    },
  ];
  const isSkeleton = (t: Target) => t.name === 'lean' || t.name === 'floor';
  const pathOf = (t: Target, p: string) => (t.name === 'gateway' ? `/v1${p}` : `/compatible-mode/v1${p}`);
  console.log(
    `tollway bench — ${SECONDS}s per run after ${WARMUP_SECONDS}s of warm-up per target, node ${process.version}, ${(await import('node:os')).cpus().length} CPUs`,
  );
  // warm-up (JIT, pools, SQLite pages): every target the same, chat then a stream and embeddings
  for (const t of [...targets, ...skeletons]) {
    await load(t, 'warmup', pathOf(t, '/chat/completions'), chatBody(t.model('chat'), false), 64, WARMUP_SECONDS);
    if (isSkeleton(t)) continue; // it takes non-streaming chat only
    await load(t, 'warmup', pathOf(t, '/chat/completions'), chatBody(t.model('chat'), true), 16, 1);
    await load(t, 'warmup', pathOf(t, '/embeddings'), embedBody(t.model('embed')), 16, 1);
  }

  const rows: Row[] = [];
  const scenarios: Array<[string, string, (t: Target) => string, number]> = [
    ['chat', '/chat/completions', (t) => chatBody(t.model('chat'), false), 64],
    ['chat-stream', '/chat/completions', (t) => chatBody(t.model('chat'), true), 64],
    ['embeddings', '/embeddings', (t) => embedBody(t.model('embed')), 64],
  ];
  for (const [name, path, body, conns] of scenarios) {
    for (const t of name === 'chat' ? [...targets, ...skeletons] : targets) {
      const r = await load(t, name, pathOf(t, path), body(t), conns);
      rows.push(r);
      console.log(fmt(r));
    }
  }
  // The machine's speed drifts between runs of a few seconds (other tenants of the host), so one proxy run and
  // one gateway run may fall in different phases. Paired rounds — proxy and gateway back to back — give a
  // ratio per round; the median of those is the figure to read for the throughput target. The order alternates
  // (proxy first in odd rounds, gateway first in even ones), so a drift within a round favours neither.
  const pairedRatios: number[] = [];
  const skeletonRatios = new Map<string, number[]>(skeletons.map((k) => [k.name, []]));
  const proxyT = targets.find((t) => t.name === 'proxy')!;
  const gatewayT = targets.find((t) => t.name === 'gateway')!;
  for (let i = 0; i < ROUNDS; i++) {
    const run = (t: Target) =>
      load(t, 'chat-paired', pathOf(t, '/chat/completions'), chatBody(t.model('chat'), false), 64, ROUND_SECONDS);
    const proxyFirst = i % 2 === 0;
    const first = await run(proxyFirst ? proxyT : gatewayT);
    const second = await run(proxyFirst ? gatewayT : proxyT);
    const [p, g] = proxyFirst ? [first, second] : [second, first];
    pairedRatios.push(g.rps / p.rps);
    // The skeletons run in the same round, after the proxy and the gateway.
    let kText = '';
    for (const t of skeletons) {
      const k = await run(t);
      skeletonRatios.get(t.name)!.push(k.rps / p.rps);
      kText += `, ${t.name} ${k.rps} req/s (cpu ${k.cpuUsPerReq} µs) → ${((k.rps / p.rps) * 100).toFixed(1)}%`;
    }
    console.log(
      `chat c=64 paired round ${i + 1} (${proxyFirst ? 'proxy first' : 'gateway first'}): proxy ${p.rps} req/s (cpu ${p.cpuUsPerReq} µs), gateway ${g.rps} req/s (cpu ${g.cpuUsPerReq} µs) → ${((g.rps / p.rps) * 100).toFixed(1)}%${kText}`,
    );
  }
  // Latency at one connection, in rounds as well: on a shared host a few seconds' run of one target can land in
  // a slow phase and another's in a fast one (single runs moved the gateway's added p50 by ±0.05 ms). Each round
  // times direct, proxy and gateway back to back, the order alternating; the figure to read is the median of the
  // rounds' gateway − proxy differences.
  const latencyDiffs: Record<string, number[]> = {};
  for (const [scenario, stream] of [
    ['chat', false],
    ['stream-first', true],
  ] as const) {
    const perTarget = new Map<string, Row[]>();
    const diffs: number[] = [];
    for (let i = 0; i < Math.max(1, ROUNDS); i++) {
      const order = i % 2 === 0 ? targets : [...targets].reverse();
      const got = new Map<string, Row>();
      for (const t of order)
        got.set(
          t.name,
          await sequential(t, scenario, pathOf(t, '/chat/completions'), chatBody(t.model('chat'), stream), {
            firstChunk: stream,
            seconds: LATENCY_ROUND_SECONDS,
          }),
        );
      for (const [name, r] of got) perTarget.set(name, [...(perTarget.get(name) ?? []), r]);
      const [d, p, g] = [got.get('direct')!, got.get('proxy')!, got.get('gateway')!];
      diffs.push(g.p50 - p.p50);
      console.log(
        `${scenario} c=1 round ${i + 1}: added p50 gateway ${(g.p50 - d.p50).toFixed(3)} ms, proxy ${(p.p50 - d.p50).toFixed(3)} ms → gateway − proxy ${(g.p50 - p.p50).toFixed(3)} ms`,
      );
    }
    latencyDiffs[scenario] = diffs;
    for (const [, rs] of perTarget) {
      const r = medianRow(rs);
      rows.push(r);
      console.log(fmt(r));
    }
  }
  const gwStats = await ask<Stats>(gw, 'stats');
  const ledger = await ask<{ rows: number }>(gw, 'ledger');

  const get = (s: string, t: string, c: number) =>
    rows.find((r) => r.scenario === s && r.target === t && r.conns === c)!;
  console.log('\nsummary');
  for (const [s, c] of [
    ['chat', 64],
    ['chat', 1],
    ['chat-stream', 64],
    ['stream-first', 1],
    ['embeddings', 64],
  ] as const) {
    const d = get(s, 'direct', c);
    const p = get(s, 'proxy', c);
    const g = get(s, 'gateway', c);
    console.log(
      `${`${s} c=${c}`.padEnd(18)} gateway/direct ${((g.rps / d.rps) * 100).toFixed(1)}%  proxy/direct ${((p.rps / d.rps) * 100).toFixed(1)}%  gateway/proxy ${((g.rps / p.rps) * 100).toFixed(1)}%  ` +
        `added p50 ${(g.p50 - d.p50).toFixed(3)} ms (proxy ${(p.p50 - d.p50).toFixed(3)} ms)  cpu gateway ${g.cpuUsPerReq} µs/req (main thread ${g.mainUsPerReq}), proxy ${p.cpuUsPerReq} µs/req`,
    );
  }
  for (const [scenario, diffs] of Object.entries(latencyDiffs)) {
    console.log(
      `${scenario} c=1 rounds gateway − proxy added p50: ${diffs.map((d) => `${d.toFixed(3)}`).join(', ')} ms → median ${median(diffs).toFixed(3)} ms`,
    );
  }
  if (pairedRatios.length > 0) {
    console.log(
      `chat c=64 paired rounds gateway/proxy: ${pairedRatios.map((r) => `${(r * 100).toFixed(1)}%`).join(', ')} → median ${(median(pairedRatios) * 100).toFixed(1)}%`,
    );
  }
  console.log(
    `gateway peak RSS ${(gwStats.peakRss / 1048576).toFixed(0)} MB (maxRSS ${(gwStats.maxRssKb / 1024).toFixed(0)} MB); ledger rows written ${ledger.rows}`,
  );
  console.log(`total bench time ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  for (const t of skeletons) {
    const k = get('chat', t.name, 64);
    const p = get('chat', 'proxy', 64);
    const ratios = skeletonRatios.get(t.name)!;
    const paired = ratios.length > 0 ? `; paired rounds median ${(median(ratios) * 100).toFixed(1)}%` : '';
    console.log(
      `${`${t.name} chat c=64`.padEnd(18)} ${t.name}/proxy ${((k.rps / p.rps) * 100).toFixed(1)}%${paired}  cpu ${t.name} ${k.cpuUsPerReq} µs/req (${SKELETON_WHAT[t.name as Skeleton]})`,
    );
  }
  const [leanR, floorR] = [skeletonRatios.get('lean'), skeletonRatios.get('floor')];
  if (leanR && floorR && leanR.length > 0) {
    // Per round: what the durable work costs the skeleton, in points of the proxy's throughput.
    const cost = leanR.map((l, i) => (l - floorR[i]!) * 100);
    console.log(
      `durable work, lean − floor per round: ${cost.map((c) => c.toFixed(1)).join(', ')} points → median ${median(cost).toFixed(1)} points of the proxy's throughput`,
    );
  }
  for (const p of [gw, proxy, sim, ...skeletons.map((t) => t.proc!)]) p.child.kill();
}

await main();
