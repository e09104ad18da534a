// The breaker state as the channel view shows it: closed → open after the threshold → half-open when the cool-down is
// over (one trial) → closed on a success; the last failures with their codes; a reset forgets them.
import { describe, expect, it } from 'vitest';
import { CircuitBreakers, RECENT_FAILURES } from '../../src/routing/circuit-breaker.ts';

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
