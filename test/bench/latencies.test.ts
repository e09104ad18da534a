import { describe, expect, it } from 'vitest';
import { quantile } from '../../bench/latencies.ts';

describe('bench latency quantiles', () => {
  it('reads the nearest rank of an ascending list, fractional milliseconds kept', () => {
    const hundred = Float64Array.from({ length: 100 }, (_, i) => i + 1.25);
    expect(quantile(hundred, 0.5)).toBe(50.25);
    expect(quantile(hundred, 0.99)).toBe(99.25);
    expect(quantile(hundred, 1)).toBe(100.25);
    expect(quantile(hundred, 0)).toBe(1.25);
    expect(quantile(Float64Array.of(17.4), 0.99)).toBe(17.4);
    expect(quantile(new Float64Array(0), 0.99)).toBeNaN();
  });
});
