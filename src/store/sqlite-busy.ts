// Waiting for SQLite's write lock without blocking the event loop. Another connection to the file (the poller
// thread's, the CLI's, another instance's) holds the lock for the length of its write. SQLite's own busy handler
// (busy_timeout) sleeps the calling thread, at least a millisecond per try: on the request thread that stops every
// request in flight, and a poller thread at a lower priority (nice), descheduled while it holds the lock, makes the
// sleep longer. So the request thread's connection answers SQLITE_BUSY at once (busy_timeout = 0) and its statements
// and batches are tried again after a timer, while the event loop goes on.

/** How long a statement or batch keeps trying for the lock before its SQLITE_BUSY is the caller's. */
export const BUSY_WAIT_MS = 5000;

/** SQLITE_BUSY and its extended codes: the lock is another connection's for now. */
export function isSqliteBusy(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Run `fn` until it does not fail with SQLITE_BUSY, waiting on a timer between tries (1 ms at first, up to 8 ms),
 * for up to `waitMs`. `fn` must be safe to run again after a busy failure: a statement that got SQLITE_BUSY changed
 * nothing, and a transaction that did rolled back.
 */
export async function whileBusy<T>(fn: () => T | Promise<T>, waitMs = BUSY_WAIT_MS): Promise<T> {
  const until = Date.now() + waitMs;
  for (let tries = 0; ; tries++) {
    try {
      return await fn();
    } catch (e) {
      if (!isSqliteBusy(e) || Date.now() >= until) throw e;
    }
    await sleep(Math.min(8, 1 + (tries >> 3)));
  }
}
