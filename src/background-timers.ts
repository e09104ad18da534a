// The timers an instance runs beside its requests: cache refresh, the reservation reaper, the request log's retention.
// Each returns its stop.
import { applyChangeHere } from './core/admin/cache-changes.ts';
import { CacheVersions } from './core/admin/cache-versions.ts';
import type { GatewayDeps } from './core/deps.ts';
import { sweepRequestLog } from './store/retention.ts';

/**
 * Apply other instances' admin changes: at once from the bus, and by a periodic re-read as the fallback, which reloads
 * only the caches whose table was written since their last reload (cache-versions.ts).
 */
export function keepCachesCoherent(deps: GatewayDeps): () => void {
  const warn = (e: unknown) => deps.logger.warn({ err: String(e) }, 'cache refresh failed');
  deps.cluster.onEvent((e) => applyChangeHere(deps, e).catch(warn));
  if (deps.config.refreshMs <= 0) return () => undefined;
  const versions = new CacheVersions(deps.store.db);
  // A catalogue file can change on disk without a write to the store: with one, the catalogue is re-read every time.
  const file = deps.config.catalogueFile !== undefined;
  let running = false;
  const refresh = async () => {
    const moved = await versions.moved();
    if (file && !moved.some((m) => m.kind === 'catalogue-changed'))
      moved.push({ kind: 'catalogue-changed', done: () => undefined });
    await Promise.all(moved.map((m) => applyChangeHere(deps, { kind: m.kind }).then(m.done, warn)));
  };
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    refresh()
      .catch(warn)
      .finally(() => (running = false));
  }, deps.config.refreshMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** Reservations a dead instance left open go back to their tokens' quotas once older than their time to live. */
export function reapReservations(deps: GatewayDeps): () => void {
  const ttl = deps.config.reservationTtlMs;
  const reap = () =>
    // Each hold released is announced (hold.reaped) in the transaction that released it.
    deps.meter
      .reapReservations(ttl, (trx, h) =>
        deps.alerts
          .emit('hold.reaped', { key: h.key, token_id: h.tokenId, amount: h.amount, ttl_ms: ttl }, { within: trx })
          .then(() => undefined),
      )
      .then(
        (n) => n > 0 && deps.logger.warn({ released: n }, 'reservations left open by a stopped instance released'),
        (e: unknown) => deps.logger.warn({ err: String(e) }, 'reservation reaper failed'),
      );
  void reap();
  const timer = setInterval(reap, Math.min(60_000, ttl));
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * The request log's retention (TOLLWAY_REQUEST_LOG_RETENTION_DAYS): a sweep at start, then hourly. The stop waits for a
 * sweep under way.
 */
export function sweepRequestLogPeriodically(deps: GatewayDeps): () => Promise<void> {
  const days = deps.config.requestLogRetentionDays;
  if (days <= 0) return async () => undefined;
  let running: Promise<unknown> | null = null;
  const sweep = () => {
    running ??= sweepRequestLog(deps.repos.requestLog, { days })
      .then(
        (n) =>
          n > 0 &&
          deps.logger.info({ deleted: n, retention_days: days }, 'request-log rows past their retention deleted'),
        (e: unknown) =>
          deps.logger.warn({ err: String(e) }, 'request-log retention sweep failed; retried at the next sweep'),
      )
      .finally(() => (running = null));
  };
  const first = setTimeout(sweep, 1_000);
  const timer = setInterval(sweep, 3_600_000);
  first.unref();
  timer.unref();
  return async () => {
    clearTimeout(first);
    clearInterval(timer);
    await running;
  };
}
