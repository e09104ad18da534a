// A stopping instance's last writes: the queued ledger and request-log rows, retried for a while, and what a store
// that never came back leaves, reported on the log.
import type { GatewayDeps } from './core/deps.ts';
import { ledgerRowForLog } from './metering/ledger-row.ts';

/**
 * How long a shutdown keeps trying to write the queued ledger and request-log rows after the drain: a store that
 * fails for a moment is retried meanwhile (main.ts gives the process this long past TOLLWAY_DRAIN_MS).
 */
export const FINAL_WRITES_MS = 3_000;
/** After the task work stopped: what its last polls and reads queued. */
export const LAST_WRITES_MS = 1_000;
/** How long a shutdown may write after its drain: the two rounds above (main.ts's hard exit waits this long). */
export const SHUTDOWN_WRITES_MS = FINAL_WRITES_MS + LAST_WRITES_MS;
const FINAL_RETRY_MS = 100;

type QueueDeps = Pick<GatewayDeps, 'meter' | 'requestLog' | 'logger'>;

/**
 * Every queued row written before the store closes, retried until `limitMs` has passed — a flush that hangs (a
 * database that stopped answering) counts against it too; what a store that never came back leaves is reported
 * on the log (reportUnwritten), not dropped silently.
 */
export async function writeQueued(deps: QueueDeps, limitMs = FINAL_WRITES_MS): Promise<void> {
  const until = Date.now() + limitMs;
  const timeLeft = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)).unref());
  // The calls are done: what the allowances still hold goes back before the instance stops.
  await Promise.race([deps.meter.releaseAllowances(), timeLeft(until - Date.now())]);
  for (;;) {
    await Promise.race([Promise.all([deps.meter.flush(), deps.requestLog.flush()]), timeLeft(until - Date.now())]);
    if (deps.meter.unwritten().length === 0 && deps.requestLog.unwritten().length === 0) return;
    if (Date.now() >= until) break;
    await timeLeft(Math.min(FINAL_RETRY_MS, until - Date.now()));
  }
  reportUnwritten(deps);
}

/**
 * What is still queued, on the log: each charge in full — to be entered by hand — and the request-log ids. Also
 * called by the process's hard exit (main.ts), so an exit that cuts the shutdown short still leaves the record.
 */
export function reportUnwritten(deps: QueueDeps): void {
  const charges = deps.meter.unwritten();
  if (charges.length > 0)
    deps.logger.error(
      { charges: charges.map(ledgerRowForLog) },
      'ledger charges not written at shutdown (the store did not take them); not billed',
    );
  const logRows = deps.requestLog.unwritten();
  if (logRows.length > 0)
    deps.logger.error({ request_ids: logRows.map((r) => r.requestId) }, 'request-log rows not written at shutdown');
}
