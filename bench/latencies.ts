// Exact latency percentiles of an autocannon run: autocannon's own histogram keeps whole milliseconds, too coarse
// for a ratio of two p99s near 20 ms (17 against 19 ms reads as 1.12×). Each response's time, as autocannon measured
// it (hrtime, fractional ms), is kept and the percentiles are read from the sorted list.
import autocannon, { type Options, type Result } from 'autocannon';

export interface TimedRun {
  result: Result;
  /** Response times in ms, ascending. */
  sorted: Float64Array;
}

/** Run autocannon and keep every response time. */
export async function timedRun(opts: Options): Promise<TimedRun> {
  const times: number[] = [];
  const instance = autocannon(opts);
  instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => void times.push(ms));
  const result = await instance;
  return { result, sorted: Float64Array.from(times).sort() };
}

/** The q-quantile (0–1) of an ascending list, by the nearest-rank rule; NaN when empty. */
export function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
