// Nothing stated: the simulated account allows 60 requests a minute (and 1 a second) and refuses the rest 429.
// The gateway does not read the account's quota list here (TOLLWAY_UPSTREAM_LIMITS_READ_MS=0): it learns from the
// refusals alone, and still the upstream refuses at most a fifth of the calls it is sent and the quiet tenant is
// served at least half the time (the thresholds).
import { describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.ts';
import { twoTenants } from './support.ts';

const RUN_MS = Number(process.env.CAPACITY_SCENARIO_MS ?? 60_000);

describe('no limit stated: a throttling upstream', () => {
  const t = useHarness({
    sim: { dashscopeRpm: 60 },
    env: { TOLLWAY_UPSTREAM_LIMITS_READ_MS: '0', TOLLWAY_CAPACITY_LEARN: 'true' },
  });

  it('is refused at most a fifth of the calls, and the quiet tenant is served at least half the time', {
    timeout: RUN_MS + 60_000,
  }, async () => {
    const { h } = t;
    const noisy = await h.token({ name: 'noisy' });
    const quiet = await h.token({ name: 'quiet' });
    const sentBefore = h.sim.requestsTo('/chat/completions').length;
    const answers = await twoTenants(h, noisy.secret, quiet.secret, RUN_MS);
    const upstream = h.sim.requestsTo('/chat/completions').length - sentBefore;
    const served = [...answers.noisy, ...answers.quiet].filter((a) => a.status === 200).length;
    const refused = upstream - served;
    if (process.env.CAPACITY_DEBUG)
      console.log({ upstream, served, refused, quiet: answers.quiet.map((a) => a.status) });
    expect(refused).toBeLessThanOrEqual(upstream / 5);
    const quietServed = answers.quiet.filter((a) => a.status === 200).length;
    expect(quietServed).toBeGreaterThanOrEqual(answers.quiet.length / 2);
    expect(h.sim.requestsTo('/quotas')).toHaveLength(0);
    // What was not served was answered 429 by the gateway or passed on as the upstream's 429: never another error.
    for (const a of [...answers.noisy, ...answers.quiet].filter((x) => x.status !== 200)) expect(a.status).toBe(429);
  });
});
