// Start-up provisioning (`env-dashscope`, `env-kling`) when several instances start together on one database:
// each makes sure the named channel exists; whichever creates it first, none fails and one channel is left.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIM_KEYS } from '../../../simulator/index.ts';
import { ensureChannel } from '../../../src/core/admin/channels.ts';
import { useHarness } from '../../support/harness.ts';

const t = useHarness({ env: { TOLLWAY_TASK_POLLER: 'false' } });

describe('ensureChannel from instances starting together', () => {
  it('concurrent calls for a new name all succeed and leave one enabled channel with the settings given', async () => {
    const h = t.h;
    const b = await h.instance();
    const keys = { apiKey: DEFAULT_SIM_KEYS.dashscopeApiKey };
    const results = await Promise.allSettled([
      ensureChannel(h.gw.deps, 'env-together', 'dashscope', h.sim.url, keys),
      ensureChannel(b.gw.deps, 'env-together', 'dashscope', h.sim.url, keys),
      ensureChannel(h.gw.deps, 'env-together', 'dashscope', h.sim.url, keys),
    ]);
    expect(results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok'))).toEqual(['ok', 'ok', 'ok']);
    const rows = await h.store.db
      .selectFrom('channels')
      .select(['name', 'status', 'base_url'])
      .where('name', '=', 'env-together')
      .execute();
    expect(rows).toEqual([{ name: 'env-together', status: 'enabled', base_url: h.sim.url }]);
  });
});
