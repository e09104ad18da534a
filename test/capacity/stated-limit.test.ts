// The stated-limit scenario: one upstream account allowing 60 requests a minute, a tenant running 24 clients in a
// loop and a quiet tenant sending one call every 3 s, for a minute (CAPACITY_SCENARIO_MS shortens it locally).
import { describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.ts';
import { ledgerOfToken, flushWriters } from '../support/store-rows.ts';
import type { Harness } from '../support/harness.ts';
import { mostInWindow, p95, stateLimits, twoTenants, type Answer } from './support.ts';

const RUN_MS = Number(process.env.CAPACITY_SCENARIO_MS ?? 60_000);

describe('stated limit: 60 rpm, a noisy and a quiet tenant', () => {
  // The simulated account enforces 60 a minute (and 1 a second) too: any call over it would be refused 429.
  const t = useHarness({ sim: { dashscopeRpm: 60 } });

  it('keeps the limit upstream, serves the quiet tenant every time, and charges every answer once', { timeout: RUN_MS + 60_000 }, async () => {
    const { h } = t;
    await stateLimits(h, { '*': { rpm: 60 } });
    const noisy = await h.token({ name: 'noisy' });
    const quiet = await h.token({ name: 'quiet' });
    const sentBefore = h.sim.requestsTo('/chat/completions').length;
    const { noisy: noisyAnswers, quiet: quietAnswers } = await twoTenants(h, noisy.secret, quiet.secret, RUN_MS);
    const upstream = h.sim.requestsTo('/chat/completions').slice(sentBefore);
    // No upstream 429: every call the gateway sent was served.
    const statuses = await upstreamStatuses(h, noisyAnswers.concat(quietAnswers));
    expect(statuses.filter((c) => c === 'upstream_rate_limited')).toEqual([]);
    if (process.env.CAPACITY_DEBUG) console.log(upstream.map((r, i) => (i ? r.at - upstream[i - 1]!.at : 0)).join(','));
    // Never more than the account allows in any minute, never two in one second.
    expect(
      mostInWindow(
        upstream.map((r) => r.at),
        60_000,
      ),
    ).toBeLessThanOrEqual(60);
    expect(
      mostInWindow(
        upstream.map((r) => r.at),
        900,
      ),
    ).toBeLessThanOrEqual(1);
    // The quiet tenant: every call served, p95 within 6 s.
    expect(quietAnswers.length).toBeGreaterThan(0);
    expect(quietAnswers.filter((a) => a.status !== 200)).toEqual([]);
    expect(p95(quietAnswers.map((a) => a.ms))).toBeLessThanOrEqual(6000);
    // The noisy tenant got the rest; what it did not get was the gateway's own 429 with Retry-After.
    const served = noisyAnswers.filter((a) => a.status === 200);
    expect(served.length + quietAnswers.length).toBe(upstream.length);
    for (const a of noisyAnswers.filter((x) => x.status !== 200)) {
      expect(a.status).toBe(429);
      expect(a.code).toBe('upstream_capacity');
      expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
    }
    // Every answer charged once, nothing else.
    await flushWriters(h);
    for (const [tok, answers] of [
      [noisy, served],
      [quiet, quietAnswers],
    ] as const) {
      const rows = await ledgerOfToken(h, tok.id);
      expect(rows.length).toBe(answers.length);
      expect(new Set(rows.map((r) => r.request_id))).toEqual(new Set(answers.map((a) => a.requestId)));
    }
  });
});

/** The error code of every upstream attempt the answers' calls made (request log). */
async function upstreamStatuses(h: Harness, answers: Answer[]): Promise<string[]> {
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
  return rows.flatMap((r) => (JSON.parse(String(r.attempts ?? '[]')) as Array<{ error_code: string | null }>).map((a) => a.error_code ?? 'ok'));
}
