import { describe, expect, it } from 'vitest';
import { countAllocation } from '../../bench/alloc.ts';

const N = 200_000;
const LEN = 30;

/** N arrays of LEN small integers; every `keepEvery`-th is kept (alive across the window's scavenges). */
function churn(keepEvery: number): unknown[] {
  const kept: unknown[] = [];
  for (let i = 0; i < N; i++) {
    const a = Array.from({ length: LEN }, (_, j) => i + j);
    if (i % keepEvery === 0) kept.push(a);
  }
  return kept;
}

describe('allocation window (bench:instructions)', () => {
  it('counts the bytes allocated between start and stop, across the collections in between', () => {
    const stop = countAllocation();
    const kept = churn(10);
    const s = stop();
    // At least the arrays' elements (4 bytes each even with compressed pointers), at most twice their whole size.
    expect(s.allocated).toBeGreaterThanOrEqual(N * LEN * 4);
    expect(s.allocated).toBeLessThanOrEqual(N * (LEN * 8 + 64) * 2);
    expect(s.scavenges).toBeGreaterThan(0);
    // The kept tenth lives across scavenges: it is moved to the old generation.
    expect(s.promoted).toBeGreaterThanOrEqual((N / 10) * LEN * 4 * 0.5);
    expect(kept.length).toBe(N / 10);
  });

  it('promotes little of what dies young', () => {
    const stop = countAllocation();
    churn(N);
    const s = stop();
    expect(s.allocated).toBeGreaterThanOrEqual(N * LEN * 4);
    expect(s.promoted).toBeLessThan(s.allocated / 10);
  });
});
