// A call's channel order draws only the few channels it may try: the work per call (channels looked at, random
// draws) stays a handful however many channels serve the model, and the weights still decide the spread.
import { describe, expect, it } from 'vitest';
import { CircuitBreakers } from '../../src/routing/circuit-breaker.ts';
import { orderChannels } from '../../src/routing/failover.ts';
import { pickChannels } from '../../src/routing/weighted-order.ts';
import { testChannel as ch } from '../support/channels.ts';

function seeded(seed = 7): () => number {
  return () => (seed = (seed * 16807) % 2147483647) / 2147483647;
}

describe('weighted channel order', () => {
  it('3,001 channels of one model: one call looks at a handful of them, not all', () => {
    const channels = Array.from({ length: 3001 }, (_, i) => ch(`c${i}`, 0, 1 + (i % 5)));
    const b = new CircuitBreakers();
    let looked = 0;
    const isOpen = b.isOpen.bind(b);
    b.isOpen = (id: string) => {
      looked++;
      return isOpen(id);
    };
    let draws = 0;
    const rand = seeded();
    const counted = () => {
      draws++;
      return rand();
    };
    orderChannels(channels, b, counted); // builds the list's prefix sums once
    looked = 0;
    draws = 0;
    const order = orderChannels(channels, b, counted);
    expect(order).toHaveLength(3);
    expect(new Set(order.map((c) => c.id)).size).toBe(3);
    expect(looked).toBeLessThanOrEqual(10);
    expect(draws).toBeLessThanOrEqual(10);
  });

  it('skips open circuits and never picks a channel twice, even when most of a level is open', () => {
    const channels = [ch('a', 1, 100), ch('b', 1, 1), ch('c', 1, 1), ch('d', 0, 1)];
    const open = new Set(['a', 'b']);
    for (let s = 1; s < 50; s++) {
      const ids = pickChannels(channels, 3, (id) => open.has(id), seeded(s)).map((c) => c.id);
      expect(ids).toEqual(['c', 'd']);
    }
  });

  it('the weights decide the spread of the first pick among thousands', () => {
    const channels = [ch('heavy', 0, 1000), ...Array.from({ length: 999 }, (_, i) => ch(`l${i}`, 0, 1))];
    const rand = seeded(3);
    let heavy = 0;
    for (let i = 0; i < 2000; i++) if (pickChannels(channels, 1, () => false, rand)[0]!.id === 'heavy') heavy++;
    // Half the total weight: about half the first picks.
    expect(heavy / 2000).toBeGreaterThan(0.4);
    expect(heavy / 2000).toBeLessThan(0.6);
  });
});
