// Waiting for something another part of the system does in its own time (a writer, a poller, a callback).
// The bounds only tell "never" from "later": they are generous (at least WAIT_FLOOR_MS), since a loaded host can be
// many times slower than an idle one, and no test here measures speed (the benchmarks do).

export const WAIT_FLOOR_MS = 30_000;

/** Wait until `cond` holds; throws naming `what` if it never does (within 60 s). */
export async function until(cond: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (const end = Date.now() + 2 * WAIT_FLOOR_MS; Date.now() < end; ) {
    if (await cond()) return;
    await new Promise((res) => setTimeout(res, 20));
  }
  throw new Error(`never happened: ${what}`);
}

/** Whether `cond` holds within `ms` (at least WAIT_FLOOR_MS; checked every 20 ms, and once more at the end). */
export async function eventually(cond: () => Promise<boolean> | boolean, ms = WAIT_FLOOR_MS): Promise<boolean> {
  const end = Date.now() + Math.max(ms, WAIT_FLOOR_MS);
  while (Date.now() < end) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return cond();
}
