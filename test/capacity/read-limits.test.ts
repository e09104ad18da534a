// Limits read from the upstream's quota list apply where none is stated; a stated value overrides the read one.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.ts';
import { until } from '../support/wait.ts';
import { chat, stateLimits } from './support.ts';

describe('limits read from the upstream', () => {
  const t = useHarness({
    sim: { dashscopeRpm: 120, dashscopeTpm: 500_000 },
    env: { TOLLWAY_UPSTREAM_LIMITS_READ_MS: '60000' },
  });

  it('apply where nothing is stated, and a stated value wins', async () => {
    const { h, token } = t;
    await until(() => h.sim.requestsTo('/quotas').length > 0, 'the quota list read');
    expect((await chat(h, token)).status).toBe(200);
    const gate = () => h.gw.deps.capacity.all().find((g) => g.model === 'qwen3.7-plus')!;
    await until(() => gate() !== undefined, 'a gate for the model');
    expect(gate().effective()).toMatchObject({ rpm: 120, tpm: 500_000, concurrency: null });
    await stateLimits(h, { 'qwx3.7-plus': { rpm: 30, concurrency: 4 } });
    expect(gate().effective()).toMatchObject({ rpm: 30, tpm: 500_000, concurrency: 4 });
    expect((await chat(h, token)).status).toBe(200);
    // The admin API shows the account's limits (each with where it comes from), use and queue on its channel.
    const list = (await (await h.admin('/admin/channels')).json()) as {
      data: Array<{ name: string; capacity: Array<Record<string, unknown>> }>;
    };
    const view = list.data.find((c) => c.name === 'sim-dashscope')!.capacity.find((v) => v.model === 'qwen3.7-plus')!;
    expect(view).toMatchObject({
      limits: { rpm: 30, tpm: 500_000, concurrency: 4 },
      stated: { rpm: 30, tpm: null, concurrency: 4 },
      read: { rpm: 120, tpm: 500_000 },
      learnt: { rpm: null, tpm: null },
      in_flight: 0,
      waiting: 0,
      paused_until: null,
    });
    expect((view.used as { requests: number }).requests).toBeGreaterThanOrEqual(1);
    // The key never appears in what the gateway shows of its accounts.
    expect(gate().upstreamAccount).not.toContain('sk-');
  });
});
