import { describe, expect, it } from 'vitest';
import { paceOf, TokenBucket } from '../../src/capacity/bucket.ts';

describe('token bucket', () => {
  it('paces a per-minute limit so that no 60 s window exceeds it and no second takes more than its share', () => {
    const { perMs, burst } = paceOf(60);
    expect(burst).toBe(1);
    const b = new TokenBucket(perMs, burst, 0);
    const taken: number[] = [];
    for (let t = 0; t <= 180_000; t += 10) {
      if (b.waitFor(1, t) === 0) {
        b.take(1);
        taken.push(t);
      }
    }
    for (let i = 0; i < taken.length; i++) {
      const inMinute = taken.filter((x) => x >= taken[i]! && x < taken[i]! + 60_000).length;
      expect(inMinute).toBeLessThanOrEqual(60);
      if (i > 0) expect(taken[i]! - taken[i - 1]!).toBeGreaterThanOrEqual(1000);
    }
    expect(taken.length).toBeGreaterThan(140);
  });

  it('paces requests one at a time, so that no second sees more than its share', () => {
    expect(paceOf(6000).burst).toBe(1);
    // 100 a second: spaced so that 100 arrivals take more than a second.
    expect(100 / paceOf(6000).perMs).toBeGreaterThan(1000);
  });

  it('answers the time until room, and takes nothing while waiting', () => {
    const { perMs, burst } = paceOf(600, 'tokens');
    expect(burst).toBe(10);
    const b = new TokenBucket(perMs, burst, 0);
    for (let i = 0; i < 10; i++) {
      expect(b.waitFor(1, 0)).toBe(0);
      b.take(1);
    }
    const wait = b.waitFor(1, 0);
    expect(wait).toBeGreaterThan(99);
    expect(wait).toBeLessThan(131);
    expect(b.waitFor(1, wait)).toBe(0);
  });

  it('a take above the burst goes when full and leaves debt; an adjustment gives tokens back', () => {
    const { perMs, burst } = paceOf(60_000, 'tokens');
    const b = new TokenBucket(perMs, burst, 0);
    expect(b.waitFor(5000, 0)).toBe(0);
    b.take(5000);
    expect(b.waitFor(1, 0)).toBeGreaterThan(3000);
    b.adjust(4500, 0);
    expect(b.waitFor(1, 0)).toBe(0);
  });
});
