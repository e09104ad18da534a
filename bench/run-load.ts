// One target under load, for `npm run bench` (bench/run.ts): a run at some connections for some seconds (autocannon),
// sequential requests at one connection timed with hrtime, each with the process's own CPU per request, and the
// median row of several runs.
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { ask, type Proc } from './procs.ts';

/** Seconds per run (BENCH_SECONDS, default 6). */
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);

export interface Stats {
  cpuUs: number;
  mainCpuUs: number;
  peakRss: number;
  maxRssKb: number;
}

export interface Target {
  name: 'direct' | 'proxy' | 'gateway' | Skeleton;
  port: number;
  auth: string;
  model: (kind: 'chat' | 'embed') => string;
  proc?: Proc;
}

/** The skeletons of bench/lean-skeleton.ts: `lean` (no durable work) and `floor` (SKELETON_DURABLE=1). */
export type Skeleton = 'lean' | 'floor';
export const SKELETON_WHAT: Record<Skeleton, string> = {
  lean: 'the least a gateway can do, no durable work',
  floor: 'durable floor: + token hash, ledger and request-log rows, access line',
};

/**
 * BENCH_SKELETON: `1` (or `lean`), `durable`, or `both` (the two in the same rounds, so their difference is the cost of
 * the durable work).
 */
export function skeletonsOf(v: string | undefined): Skeleton[] {
  if (v === undefined || v === '' || v === '0') return [];
  if (v === 'both') return ['lean', 'floor'];
  if (v === 'durable') return ['floor'];
  if (v === '1' || v === 'lean') return ['lean'];
  throw new Error(`BENCH_SKELETON=${v}: expected 1, lean, durable or both`);
}

export interface Row {
  scenario: string;
  target: string;
  conns: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  cpuUsPerReq?: number;
  mainUsPerReq?: number;
}

export async function load(
  t: Target,
  scenario: string,
  path: string,
  body: string,
  conns: number,
  seconds = SECONDS,
): Promise<Row> {
  const before = t.proc ? await ask<Stats>(t.proc, 'stats') : null;
  const r = await autocannon({
    url: `http://127.0.0.1:${t.port}${path}`,
    method: 'POST',
    connections: conns,
    duration: seconds,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${t.auth}` },
    body,
  });
  const after = t.proc ? await ask<Stats>(t.proc, 'stats') : null;
  const ok = r.requests.total - r.non2xx;
  const row: Row = {
    scenario,
    target: t.name,
    conns,
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.non2xx + r.timeouts,
  };
  if (before && after && ok > 0) {
    row.cpuUsPerReq = Math.round((after.cpuUs - before.cpuUs) / ok);
    row.mainUsPerReq = Math.round((after.mainCpuUs - before.mainCpuUs) / ok);
  }
  return row;
}

/**
 * Sequential requests on one keep-alive connection, timed with hrtime (autocannon reports whole ms,
 * too coarse for sub-millisecond added latency). `firstChunk` times the first body chunk (streams).
 */
export async function sequential(
  t: Target,
  scenario: string,
  path: string,
  body: string,
  opts: { firstChunk: boolean; seconds: number },
): Promise<Row> {
  const pool = new Pool(`http://127.0.0.1:${t.port}`, { connections: 1, pipelining: 1 });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${t.auth}` };
  const times: number[] = [];
  let errors = 0;
  const before = t.proc ? await ask<Stats>(t.proc, 'stats') : null;
  const end = Date.now() + opts.seconds * 1000;
  const startAll = process.hrtime.bigint();
  while (Date.now() < end) {
    const t0 = process.hrtime.bigint();
    const res = await pool.request({ method: 'POST', path, headers, body });
    if (res.statusCode !== 200) errors++;
    let first = true;
    for await (const _c of res.body) {
      if (first && opts.firstChunk) times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      first = false;
    }
    if (!opts.firstChunk) times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const elapsed = Number(process.hrtime.bigint() - startAll) / 1e9;
  const after = t.proc ? await ask<Stats>(t.proc, 'stats') : null;
  await pool.close();
  times.sort((a, b) => a - b);
  const row: Row = {
    scenario,
    target: t.name,
    conns: 1,
    rps: Math.round(times.length / elapsed),
    p50: times[Math.floor(times.length / 2)]!,
    p99: times[Math.floor(times.length * 0.99)]!,
    errors,
  };
  if (before && after) {
    row.cpuUsPerReq = Math.round((after.cpuUs - before.cpuUs) / times.length);
    row.mainUsPerReq = Math.round((after.mainCpuUs - before.mainCpuUs) / times.length);
  }
  return row;
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** One row of several runs of the same target: the median of each figure. */
export function medianRow(rs: Row[]): Row {
  const m = (f: (r: Row) => number | undefined) => {
    const xs = rs.map(f).filter((x): x is number => x !== undefined);
    return xs.length > 0 ? median(xs) : undefined;
  };
  const row: Row = {
    ...rs[0]!,
    rps: m((r) => r.rps)!,
    p50: m((r) => r.p50)!,
    p99: m((r) => r.p99)!,
    errors: rs.reduce((a, r) => a + r.errors, 0),
  };
  const cpu = m((r) => r.cpuUsPerReq);
  const main = m((r) => r.mainUsPerReq);
  if (cpu !== undefined) row.cpuUsPerReq = cpu;
  if (main !== undefined) row.mainUsPerReq = main;
  return row;
}

export const fmt = (r: Row) =>
  `${r.scenario.padEnd(16)} ${r.target.padEnd(8)} c=${String(r.conns).padEnd(3)} ${String(r.rps).padStart(7)} req/s  p50 ${r.p50.toFixed(3).padStart(7)} ms  p99 ${r.p99.toFixed(3).padStart(7)} ms  err ${r.errors}${r.cpuUsPerReq !== undefined ? `  cpu ${r.cpuUsPerReq} µs/req (main thread ${r.mainUsPerReq})` : ''}`;
