// Two gateway instances on one store and one Redis in front of one upstream account: with Redis every instance draws
// on the same buckets, so the stated-limit scenario holds summed over both (the upstream's own books: no 429, never
// more than stated a minute or a second) and the quiet tenant is served through either; while Redis is unreachable
// every call is still answered and each instance paces the stated rate alone. Runs on both stores (TEST_REDIS_URL).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/config.ts';
import { useHarness } from '../support/harness.ts';
import { tcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { expectMustHold, upstreamRefusals } from './must-hold.ts';
import { chatAt, mostInWindow, stateLimits, twoTenants, type Answer } from './support.ts';

const redisUrl = process.env.TEST_REDIS_URL;
const RUN_MS = Number(process.env.CAPACITY_SCENARIO_MS ?? 60_000);

/** Buckets of this file's own (a run of another file or store on the same Redis never shares them). */
const ownPrefix = (c: Config) => void (c.limits.redisPrefix = `tollway-test-${randomUUID()}:`);

describe.runIf(redisUrl)('two instances sharing Redis, one 60 rpm account', () => {
  const t = useHarness({
    sim: { dashscopeRpm: 60 },
    env: { REDIS_URL: redisUrl ?? '', TOLLWAY_TASK_POLLER: 'false' },
    configure: ownPrefix,
  });

  it('keeps the limit summed over both, serves the quiet tenant through either, charges every answer once', {
    timeout: RUN_MS + 60_000,
  }, async () => {
    const { h } = t;
    await stateLimits(h, { '*': { rpm: 60 } });
    // Started after the change: it reads the limits from the store.
    const other = await h.instance();
    const noisy = await h.token({ name: 'noisy' });
    const quiet = await h.token({ name: 'quiet' });
    const sentBefore = h.sim.requestsTo('/chat/completions').length;
    const refusedBefore = upstreamRefusals(h);
    const run = await twoTenants(h, noisy.secret, quiet.secret, RUN_MS, [h.url, other.url]);
    const upstreamAt = h.sim
      .requestsTo('/chat/completions')
      .slice(sentBefore)
      .map((r) => r.at);
    await expectMustHold(h, {
      noisy: { id: noisy.id, answers: run.noisy },
      quiet: { id: quiet.id, answers: run.quiet },
      upstreamAt,
      refusedBefore,
      rpm: 60,
      others: [other],
    });
    // Both instances admitted calls (the quiet tenant's alternate between them).
    expect(run.quiet.length).toBeGreaterThanOrEqual(2);
  });
});

describe.runIf(redisUrl)('two instances while Redis is unreachable', () => {
  let proxy: TcpProxy;
  const u = new URL(redisUrl ?? 'redis://127.0.0.1:6379');
  // Before the harness starts (its Redis goes through the proxy), closed after it stopped.
  beforeAll(async () => {
    proxy = await tcpProxy(u.hostname, Number(u.port || 6379));
  });
  afterAll(() => proxy.close());
  // The account allows 120 a minute, 2 a second: what two instances each pacing a stated 60 alone may send.
  const t = useHarness({
    sim: { dashscopeRpm: 120 },
    env: { TOLLWAY_TASK_POLLER: 'false' },
    configure: (c) => {
      ownPrefix(c);
      c.redisUrl = `redis://${proxy.address}${u.pathname}`;
    },
  });

  it('answers every call, each instance pacing the stated rate alone', { timeout: 60_000 }, async () => {
    const { h } = t;
    await stateLimits(h, { '*': { rpm: 60 } });
    const other = await h.instance();
    const token = (await h.token({ name: 'load' })).secret;
    // Both instances admitted a call through Redis before it went away.
    for (const base of [h.url, other.url]) expect((await chatAt(base, token)).status).toBe(200);
    const sentBefore = h.sim.requestsTo('/chat/completions').length;
    const refusedBefore = upstreamRefusals(h);
    proxy.cut();
    try {
      const answers = new Map<string, Answer[]>([
        [h.url, []],
        [other.url, []],
      ]);
      const end = performance.now() + 8000;
      const loop = async (base: string) => {
        while (performance.now() < end) answers.get(base)!.push(await chatAt(base, token));
      };
      await Promise.all([h.url, other.url].flatMap((base) => [loop(base), loop(base), loop(base)]));
      for (const [, list] of answers) {
        // Answered: served, or the gateway's own 429 after the queue wait; never an error of Redis's absence.
        expect(list.filter((a) => a.status === 200).length).toBeGreaterThan(0);
        for (const a of list.filter((x) => x.status !== 200))
          expect([a.status, a.code]).toEqual([429, 'upstream_capacity']);
      }
      const upstreamAt = h.sim
        .requestsTo('/chat/completions')
        .slice(sentBefore)
        .map((r) => r.at);
      // Each instance still paces 60 a minute: the account's 2 a second is never passed, nothing refused upstream.
      expect(upstreamRefusals(h) - refusedBefore).toBe(0);
      expect(mostInWindow(upstreamAt, 900)).toBeLessThanOrEqual(2);
    } finally {
      proxy.restore();
    }
  });
});
