// The breaker state as the channel view shows it: closed → open after the threshold → half-open when the cool-down is
// over (one trial) → closed on a success; the last failures with their codes; a reset forgets them. And the channel
// order a call tries: an open channel skipped, priority first, then weight.
import { describe, expect, it } from 'vitest';
import { CircuitBreakers, RECENT_FAILURES } from '../../src/routing/circuit-breaker.ts';
import { orderChannels } from '../../src/routing/failover.ts';
import { testChannel as ch } from '../support/channels.ts';

describe('CircuitBreakers.view', () => {
  it('follows the breaker through its states and keeps the last failures, newest last', () => {
    let now = 1_000;
    const b = new CircuitBreakers({ threshold: 3, cooldownMs: 500 }, () => now);
    expect(b.view('ch')).toEqual({ state: 'closed', consecutive_failures: 0, open_until: null, recent_failures: [] });
    b.failure('ch', 'upstream_timeout');
    now = 1_010;
    b.failure('ch', 'upstream_error');
    expect(b.view('ch')).toMatchObject({ state: 'closed', consecutive_failures: 2 });
    now = 1_020;
    b.failure('ch', 'upstream_unreachable');
    expect(b.view('ch')).toEqual({
      state: 'open',
      consecutive_failures: 3,
      open_until: 1_520,
      recent_failures: [
        { at: 1_000, code: 'upstream_timeout' },
        { at: 1_010, code: 'upstream_error' },
        { at: 1_020, code: 'upstream_unreachable' },
      ],
    });
    now = 1_520;
    expect(b.view('ch')).toMatchObject({ state: 'half-open', open_until: null });
    expect(b.allow('ch')).toBe(true);
    b.success('ch');
    // A success closes it; the recent failures stay visible for the operator.
    expect(b.view('ch')).toMatchObject({ state: 'closed', consecutive_failures: 0, open_until: null });
    expect(b.view('ch').recent_failures).toHaveLength(3);
    for (let i = 0; i < 10; i++) b.failure('ch', `code_${i}`);
    expect(b.view('ch').recent_failures.map((f) => f.code)).toEqual(
      Array.from({ length: RECENT_FAILURES }, (_, i) => `code_${10 - RECENT_FAILURES + i}`),
    );
    b.reset('ch');
    expect(b.view('ch')).toEqual({ state: 'closed', consecutive_failures: 0, open_until: null, recent_failures: [] });
    expect(b.allow('ch')).toBe(true);
  });

  it('a view is a copy: changing it changes nothing', () => {
    const b = new CircuitBreakers({ threshold: 1, cooldownMs: 1000 });
    b.failure('x', 'upstream_error');
    const v = b.view('x');
    v.recent_failures.pop();
    expect(b.view('x').recent_failures).toHaveLength(1);
  });
});

describe('CircuitBreakers.onTransition', () => {
  it('reports the opening once (a failed half-open trial is no new one) and the closing once', () => {
    let now = 1_000;
    const b = new CircuitBreakers({ threshold: 2, cooldownMs: 100 }, () => now);
    const seen: Array<[string, string, number]> = [];
    b.onTransition((id, to, at) => seen.push([id, to, at]));
    b.success('ch');
    b.failure('ch');
    b.failure('ch');
    now = 1_200;
    expect(b.allow('ch')).toBe(true);
    b.failure('ch');
    b.failure('ch');
    expect(seen).toEqual([['ch', 'opened', 1_000]]);
    now = 1_400;
    b.success('ch');
    b.success('ch');
    expect(seen).toEqual([
      ['ch', 'opened', 1_000],
      ['ch', 'closed', 1_400],
    ]);
  });
});

describe('circuit breaker', () => {
  it('opens after the threshold, skips the channel, then lets one trial through after the cooldown', () => {
    let now = 1000;
    const b = new CircuitBreakers({ threshold: 2, cooldownMs: 100 }, () => now);
    b.failure('a');
    expect(b.allow('a')).toBe(true);
    b.failure('a');
    expect(b.isOpen('a')).toBe(true);
    expect(b.allow('a')).toBe(false);
    expect(orderChannels([ch('a', 5), ch('b', 1)], b).map((c) => c.id)).toEqual(['b']);
    now += 150;
    expect(b.allow('a')).toBe(true); // half-open trial
    expect(b.allow('a')).toBe(false); // only one trial at a time
    b.success('a');
    expect(b.isOpen('a')).toBe(false);
    expect(b.allow('a')).toBe(true);
  });

  it('orders by priority and spreads by weight within a priority', () => {
    const b = new CircuitBreakers();
    const counts = { x: 0, y: 0 };
    let seed = 1;
    const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let i = 0; i < 2000; i++) {
      const first = orderChannels([ch('x', 1, 3), ch('y', 1, 1), ch('z', 0, 100)], b, rand)[0]!.id as 'x' | 'y';
      counts[first]++;
    }
    expect(counts.x + counts.y).toBe(2000); // z (lower priority) is never first
    expect(counts.x / 2000).toBeGreaterThan(0.65);
    expect(counts.x / 2000).toBeLessThan(0.85);
  });
});
