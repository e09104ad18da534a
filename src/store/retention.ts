// The request log's retention: rows older than the configured number of days are deleted in small batches, with a
// pause between batches so the request path's own writes (one writer on SQLite) never wait long. The ledger is the
// billing record and is never swept.
import type { RequestLogRepo } from './repos/request-log.ts';

export interface RetentionOptions {
  /** Rows older than this many days go; 0 keeps every row. */
  days: number;
  /** Rows per delete. */
  batch?: number;
  /** Pause between batches (ms). */
  pauseMs?: number;
  now?: () => number;
}

const DAY_MS = 86_400_000;

/** One sweep: delete every request-log row older than the retention, batch by batch. Returns how many went. */
export async function sweepRequestLog(
  repo: Pick<RequestLogRepo, 'deleteOlderThan'>,
  o: RetentionOptions,
): Promise<number> {
  if (o.days <= 0) return 0;
  const batch = o.batch ?? 500;
  const cutoff = (o.now ?? Date.now)() - o.days * DAY_MS;
  let total = 0;
  for (;;) {
    const n = await repo.deleteOlderThan(cutoff, batch);
    total += n;
    if (n < batch) return total;
    await new Promise((r) => setTimeout(r, o.pauseMs ?? 20));
  }
}
