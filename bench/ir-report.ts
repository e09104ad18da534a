// bench:instructions' figures for one target (bench/instructions.ts) and the text of its report lines.
import type { AllocStats } from './alloc.ts';
import type { ThreadCounts } from './callgrind.ts';

export interface Counted extends ThreadCounts {
  /** Warm-up requests beyond WARMUP until the first full collection. */
  settle: number;
  /** Warm-up requests after it, until the collections stopped. */
  after: number;
  /** The main isolate's allocation and collections in the counted window. */
  alloc: AllocStats;
  /** The window's wall time, and the counts of as long again with no request (per request of the window). */
  windowMs: number;
  idle: ThreadCounts | null;
}

/** Bytes allocated and promoted per request, and the window's collections. */
export function allocText(a: AllocStats, proxy: AllocStats | undefined, requests: number): string {
  const per = (n: number) => Math.round(n / requests);
  const rel = proxy ? ` (${(a.allocated / proxy.allocated).toFixed(2)}× the proxy's)` : '';
  return `allocated ${per(a.allocated)} B/req${rel}, promoted ${per(a.promoted)} B/req; ${a.scavenges} scavenges, ${a.fullGcs} full collections in the window`;
}

/** The idle window's counts beside the chat window's, and the chat window's less them. */
export function idleText(c: Counted, i: ThreadCounts, proxy: Counted | undefined): string {
  const net = c.all - i.all;
  const rel = proxy?.idle && proxy !== c ? ` (${(net / (proxy.all - proxy.idle.all)).toFixed(2)}× the proxy's)` : '';
  return `idle for the window's ${(c.windowMs / 1000).toFixed(0)} s, per request of the window: main thread ${i.main}, V8's threads ${i.v8}, worker threads ${i.workers}, all ${i.all}; all threads less the idle window ${net}${rel}`;
}
