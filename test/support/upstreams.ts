// More upstream accounts for a harness: a second simulator with its own channels, and an address nothing
// listens on.
import { DEFAULT_SIM_KEYS, startSimulator, type Simulator } from '../../simulator/index.ts';
import { GENEROUS_SIM_LIMITS } from './simulator.ts';
import { createChannel } from '../../src/core/admin/channels.ts';
import type { Harness } from './harness.ts';

/** A second simulator and a DashScope + Kling channel on it (lower priority than the harness's own unless said). */
export async function secondUpstream(
  h: Harness,
  opts: { priority?: number; name?: string } = {},
): Promise<{ sim: Simulator; close(): Promise<void> }> {
  const sim = await startSimulator({ taskDurationMs: 300, ...GENEROUS_SIM_LIMITS });
  const name = opts.name ?? 'backup';
  const deps = h.gw.deps;
  await createChannel(deps, {
    name: `${name}-dashscope`,
    kind: 'dashscope',
    baseUrl: sim.url,
    keys: { apiKey: DEFAULT_SIM_KEYS.dashscopeApiKey },
    models: null,
    priority: opts.priority ?? -1,
  });
  await createChannel(deps, {
    name: `${name}-kling`,
    kind: 'kling',
    baseUrl: sim.url,
    keys: { accessKey: DEFAULT_SIM_KEYS.klingAccessKey, secretKey: DEFAULT_SIM_KEYS.klingSecretKey },
    models: null,
    priority: opts.priority ?? -1,
  });
  return { sim, close: () => sim.close() };
}

/** A port nothing listens on (connection refused). */
export const DEAD_URL = 'http://127.0.0.1:9';
