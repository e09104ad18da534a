// The stated-limit scenario: one upstream account allowing 60 requests a minute, a tenant running 24 clients in a
// loop and a quiet tenant sending one call every 3 s, for a minute (CAPACITY_SCENARIO_MS shortens it locally). Runs
// on the store of the test pass (SQLite and PostgreSQL); the two-instance run with Redis is two-instances.test.ts.
import { describe, it } from 'vitest';
import { useHarness } from '../support/harness.ts';
import { expectMustHold, upstreamRefusals } from './must-hold.ts';
import { stateLimits, twoTenants } from './support.ts';

const RUN_MS = Number(process.env.CAPACITY_SCENARIO_MS ?? 60_000);

describe('stated limit: 60 rpm, a noisy and a quiet tenant', () => {
  // The simulated account enforces 60 a minute (and 1 a second) too: any call over it would be refused 429.
  const t = useHarness({ sim: { dashscopeRpm: 60 } });

  it('keeps the limit upstream, serves the quiet tenant every time, and charges every answer once', {
    timeout: RUN_MS + 60_000,
  }, async () => {
    const { h } = t;
    await stateLimits(h, { '*': { rpm: 60 } });
    const noisy = await h.token({ name: 'noisy' });
    const quiet = await h.token({ name: 'quiet' });
    const sentBefore = h.sim.requestsTo('/chat/completions').length;
    const refusedBefore = upstreamRefusals(h);
    const run = await twoTenants(h, noisy.secret, quiet.secret, RUN_MS);
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
    });
  });
});
