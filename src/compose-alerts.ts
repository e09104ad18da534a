// The composition root's part for the operator's alerts (compose.ts builds a gateway with it): their checks and
// webhook deliveries, started and stopped by process life.
import { WebhookDispatcher } from './alerts/dispatcher.ts';
import { AlertWatch, budgetSource, quotaSource } from './alerts/watch.ts';
import type { GatewayDeps } from './core/deps.ts';
import { RoundLoop } from './runtime/round-loop.ts';

/** The operator's alerts on an instance: their checks and webhook deliveries (tests run a round by hand). */
export interface AlertLoops {
  watch: AlertWatch;
  dispatcher: WebhookDispatcher;
  start(): void;
  stop(): Promise<void>;
}

/**
 * The checks (spending, task failure rate) every TOLLWAY_ALERT_CHECK_MS and the webhook deliveries. Every instance
 * runs both: the marks and delivery claims in the store keep each alert to one event and each attempt to one sender.
 */
export function composeAlerts(deps: GatewayDeps): AlertLoops {
  const o = deps.config.alerts;
  const watch = new AlertWatch(
    deps.store.db,
    deps.alerts,
    [quotaSource(deps.store.db, 'token'), quotaSource(deps.store.db, 'account'), budgetSource(deps.store.db)],
    o,
  );
  const dispatcher = new WebhookDispatcher(deps.store.db, deps.box, deps.logger, {
    ...o,
    allowPrivateNetwork: deps.config.allowPrivateNetwork,
  });
  // A check that wrote alerts has deliveries due now.
  const checks = new RoundLoop(
    () => watch.check().then(() => dispatcher.kick()),
    o.checkMs,
    (e) => deps.logger.warn({ err: String(e) }, 'alert check failed'),
  );
  return {
    watch,
    dispatcher,
    start: () => {
      checks.start();
      dispatcher.start();
    },
    stop: async () => {
      await checks.stop();
      await dispatcher.stop();
    },
  };
}
