import { describe, expect, it } from 'vitest';
import type { Channel } from '../../src/routing/channel-registry.ts';
import { CircuitBreakers } from '../../src/routing/circuit-breaker.ts';
import { roomFirst, withFailover } from '../../src/routing/failover.ts';

const ch = (id: string, priority = 0): Channel => ({
  id,
  name: id,
  kind: 'dashscope',
  baseUrl: 'http://x',
  keys: {},
  models: null,
  priority,
  weight: 1,
  upstreamAccount: id,
  taskSlots: null,
  modelLimits: null,
});

describe('channels with room first', () => {
  it('puts the channels with room ahead, each part in its order', () => {
    const [a, b, c] = [ch('a'), ch('b'), ch('c')];
    expect(roomFirst([a, b, c], (x) => x.id !== 'a').map((x) => x.id)).toEqual(['b', 'c', 'a']);
    const same = [a, b];
    expect(roomFirst(same, () => true)).toBe(same);
    expect(roomFirst(same, () => false)).toBe(same);
  });

  it('a call goes to the account with room before the higher-priority one that has none', async () => {
    const full = ch('full', 10);
    const free = ch('free', 0);
    const tried: string[] = [];
    await withFailover([full, free], new CircuitBreakers(), async (c) => void tried.push(c.id), {
      policy: 'safe',
      roomFirst: (c) => c.id === 'free',
    });
    expect(tried).toEqual(['free']);
  });
});
