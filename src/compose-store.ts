// The store-backed objects of the composition root (compose.ts): the repos, the meter and the request-log writer.
import type { Logger } from 'pino';
import type { Catalogue } from './catalogue/catalogue.ts';
import type { GatewayDeps } from './core/deps.ts';
import { ledgerRowForLog } from './metering/ledger-row.ts';
import { RESERVATION_PREFIX, StoreMeter } from './metering/meter.ts';
import type { LimitRefused } from './metering/refusal.ts';
import { FlushTick } from './store/group-commit.ts';
import { AuditRepo } from './store/repos/audit.ts';
import { ChannelsRepo } from './store/repos/channels.ts';
import { ConsoleSessionsRepo } from './store/repos/console-sessions.ts';
import { StaffRepo } from './store/repos/staff.ts';
import { MembersRepo } from './store/repos/members.ts';
import { PortalSessionsRepo } from './store/repos/portal-sessions.ts';
import { GaugesRepo } from './store/repos/gauges.ts';
import { LedgerRepo } from './store/repos/ledger.ts';
import { ReconcileRepo } from './store/repos/reconcile.ts';
import { RequestLogRepo, RequestLogWriter } from './store/repos/request-log.ts';
import { RequestStatsRepo } from './store/repos/request-stats.ts';
import { LedgerStatsRepo } from './store/repos/ledger-stats.ts';
import { TokensRepo } from './store/repos/tokens.ts';
import type { Store } from './store/store.ts';
import { AccountsRepo } from './store/repos/accounts.ts';
import { PriceGroupsRepo } from './store/repos/price-groups.ts';
import type { PriceGroups } from './pricing/price-groups.ts';
import { WebhooksRepo } from './store/repos/webhooks.ts';
import { CreditCodesRepo } from './store/repos/credit-codes.ts';
import { PaymentEventsRepo } from './store/repos/payment-events.ts';

export function buildRepos(store: Store): GatewayDeps['repos'] {
  const { db, reads } = store;
  // The heavy reads (bills, lists, reconciliation) go to `reads`: off the event loop on a SQLite file store.
  return {
    tokens: new TokensRepo(db),
    channels: new ChannelsRepo(db),
    audit: new AuditRepo(db),
    ledger: new LedgerRepo(reads),
    requestLog: new RequestLogRepo(reads, db),
    reconcile: new ReconcileRepo(reads),
    consoleSessions: new ConsoleSessionsRepo(db),
    staff: new StaffRepo(db),
    members: new MembersRepo(db),
    portalSessions: new PortalSessionsRepo(db),
    requestStats: new RequestStatsRepo(db, reads),
    ledgerStats: new LedgerStatsRepo(reads),
    gauges: new GaugesRepo(reads, RESERVATION_PREFIX),
    webhooks: new WebhooksRepo(db),
    accounts: new AccountsRepo(db),
    priceGroups: new PriceGroupsRepo(db),
    creditCodes: new CreditCodesRepo(db),
    payments: new PaymentEventsRepo(db),
  };
}

export /** The meter and the request-log writer: both group-commit through the SQLite batch writer when there is one. */
function composeWriters(
  store: Store,
  audit: AuditRepo,
  catalogue: () => Catalogue,
  logger: Logger,
  priceGroups: PriceGroups,
  clock?: () => number,
  onRefused?: (r: LimitRefused) => void,
): { meter: StoreMeter; requestLog: RequestLogWriter } {
  // One flush timer for both queues: a tick's charges and log rows reach the batch writer in one turn, one commit.
  const tick = new FlushTick(10);
  const meter = new StoreMeter(store.db, catalogue, {
    priceGroups,
    tick,
    ...(clock ? { now: clock } : {}),
    batchWriter: store.batchWriter,
    ...(onRefused ? { onRefused } : {}),
    onError: (e, queued) =>
      logger.error({ err: String(e), queued }, 'ledger batch write failed; charges stay queued and are retried'),
    onAllowanceError: (e) =>
      logger.warn(
        { err: String(e) },
        'allowance not placed or given back; calls reserve one by one, the reaper gives it back',
      ),
    // Every field of the refused charge, so the operator can enter it by hand: it is not retried.
    onRejected: (rows, e) =>
      logger.error(
        { err: String(e), charges: rows.map(ledgerRowForLog) },
        'ledger charges refused by the store; set aside, not billed',
      ),
    onClamped: (r) => {
      const detail = {
        key: r.key,
        token_id: r.tokenId,
        model: r.model,
        amount: r.charge.amount,
        quantities: r.charge.quantities,
      };
      logger.warn(detail, 'charge clamped to the largest amount one charge may carry');
      audit
        .write({ actor: 'meter', action: 'charge.clamped', target: r.key, detail, requestId: r.requestId })
        .catch((e: unknown) => logger.error({ err: String(e) }, 'audit write failed'));
    },
  });
  const requestLog = new RequestLogWriter(store.db, {
    batchWriter: store.batchWriter,
    tick,
    chargesAhead: () => meter.chargesAhead(),
    onError: (e) => logger.error({ err: String(e) }, 'request log write failed'),
    onRejected: (rows, e) =>
      logger.error(
        { err: String(e), request_ids: rows.map((r) => r.requestId) },
        'request-log rows refused by the store; set aside',
      ),
  });
  return { meter, requestLog };
}
