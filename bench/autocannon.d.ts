// The slice of autocannon's API the bench uses (the package ships no types).
declare module 'autocannon' {
  export interface Options {
    url: string;
    method?: string;
    connections?: number;
    duration?: number;
    /** Stop after this many requests (instead of a duration). */
    amount?: number;
    /** Seconds before a request counts as timed out. */
    timeout?: number;
    headers?: Record<string, string>;
    body?: string;
  }
  export interface Histogram {
    average: number;
    p50: number;
    p99: number;
    total: number;
  }
  export interface Result {
    requests: Histogram;
    latency: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
  }
  /** A run: a promise of its result that also emits each response (client, status, bytes, time in fractional ms). */
  export interface Instance extends PromiseLike<Result> {
    on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): Instance;
  }
  function autocannon(opts: Options): Instance;
  export default autocannon;
}
