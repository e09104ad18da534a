// The "Must hold" points of the stated-limit scenario, asserted alike for one instance and for two
// sharing Redis: the upstream's own books show no 429 and no more calls than stated in any minute or second; the quiet
// tenant is served every call with p95 <= 6 s; the noisy one is served the rest and refused only by the gateway
// itself; every answer is charged once and nothing else is.
import { expect } from 'vitest';
import { rateLimitStats } from '../../simulator/rate-limits.ts';
import type { GatewayInstance, Harness } from '../support/harness.ts';
import { flushWriters, ledgerOfToken } from '../support/store-rows.ts';
import { mostInWindow, p95, type Answer } from './support.ts';

export interface ScenarioRun {
  noisy: { id: string; answers: Answer[] };
  quiet: { id: string; answers: Answer[] };
  /** The chat calls the upstream received during the run (its own record). */
  upstreamAt: number[];
  /** The upstream's 429s before the run. */
  refusedBefore: number;
  /** The stated requests per minute. */
  rpm: number;
  /** Instances besides the harness's own that served the run (their writers are flushed too). */
  others?: readonly GatewayInstance[];
}

/** Every 429 the simulated upstream answered so far, over every account and model. */
export function upstreamRefusals(h: Harness): number {
  let n = 0;
  for (const b of rateLimitStats(h.sim.ctx).values()) n += b.refused.requests + b.refused.tokens + b.refused.burst;
  return n;
}

export async function expectMustHold(h: Harness, run: ScenarioRun): Promise<void> {
  const { noisy, quiet, upstreamAt } = run;
  for (const o of run.others ?? []) {
    await o.gw.deps.meter.flush();
    await o.gw.deps.requestLog.flush();
  }
  if (process.env.CAPACITY_DEBUG) {
    const s = [...upstreamAt].sort((a, b) => a - b);
    console.log(
      s.map((x, i) => (i ? x - s[i - 1]! : 0)).join(','),
      JSON.stringify([...rateLimitStats(h.sim.ctx)].map(([k, b]) => [k, b.refused])),
    );
    const served = noisy.answers.filter((a) => a.status === 200).length;
    console.log(
      `upstream ${upstreamAt.length}, quiet ${quiet.answers.length} p95 ${Math.round(p95(quiet.answers.map((a) => a.ms)))} ms, noisy ${served}/${noisy.answers.length}`,
    );
  }
  // No upstream 429: the upstream refused nothing, and no attempt of any answer was refused.
  expect(upstreamRefusals(h) - run.refusedBefore).toBe(0);
  const codes = await attemptCodes(h, noisy.answers.concat(quiet.answers));
  expect(codes.filter((c) => c === 'upstream_rate_limited')).toEqual([]);
  // Never more than stated in any minute, never more than its per-second share in any second.
  expect(mostInWindow(upstreamAt, 60_000)).toBeLessThanOrEqual(run.rpm);
  expect(mostInWindow(upstreamAt, 900)).toBeLessThanOrEqual(Math.ceil(run.rpm / 60));
  // The quiet tenant: every call served, p95 within 6 s.
  expect(quiet.answers.length).toBeGreaterThan(0);
  expect(quiet.answers.filter((a) => a.status !== 200)).toEqual([]);
  expect(p95(quiet.answers.map((a) => a.ms))).toBeLessThanOrEqual(6000);
  // The noisy tenant got the rest (every upstream call is one served answer); what it did not get was the
  // gateway's own 429 with Retry-After.
  const served = noisy.answers.filter((a) => a.status === 200);
  expect(served.length).toBeGreaterThan(0);
  expect(served.length + quiet.answers.length).toBe(upstreamAt.length);
  for (const a of noisy.answers.filter((x) => x.status !== 200)) {
    expect(a.status).toBe(429);
    expect(a.code).toBe('upstream_capacity');
    expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
  }
  // Every answer charged once, nothing else.
  await flushWriters(h);
  for (const [id, answers] of [
    [noisy.id, served],
    [quiet.id, quiet.answers],
  ] as const) {
    const rows = await ledgerOfToken(h, id);
    expect(rows.length).toBe(answers.length);
    expect(new Set(rows.map((r) => r.request_id))).toEqual(new Set(answers.map((a) => a.requestId)));
  }
}

/** The error code of every upstream attempt the answers' calls made (request log; 'ok' for a served attempt). */
async function attemptCodes(h: Harness, answers: Answer[]): Promise<string[]> {
  await flushWriters(h);
  const rows = await h.store.db
    .selectFrom('request_log')
    .select(['attempts'])
    .where(
      'request_id',
      'in',
      answers.map((a) => a.requestId),
    )
    .execute();
  expect(rows.length).toBe(answers.length);
  return rows.flatMap((r) =>
    (JSON.parse(String(r.attempts ?? '[]')) as Array<{ error_code: string | null }>).map((a) => a.error_code ?? 'ok'),
  );
}
