// A channel for routing tests: a DashScope channel named by its id, with a priority and a weight, no account or limits.
import type { Channel } from '../../src/routing/channel-registry.ts';

export const testChannel = (id: string, priority = 0, weight = 1): Channel => ({
  id,
  name: id,
  kind: 'dashscope',
  baseUrl: 'http://x',
  keys: {},
  models: null,
  priority,
  weight,
  upstreamAccount: null,
  taskSlots: null,
  modelLimits: null,
});
