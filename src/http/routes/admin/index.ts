import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../../../core/deps.ts';
import { useJsonBodyParser } from '../../json-body.ts';
import { requireAdmin } from './admin-auth.ts';
import { registerAuditRoutes } from './audit.ts';
import { registerBillRoutes } from './bills.ts';
import { registerLedgerRoutes } from './ledger.ts';
import { registerLogRoutes } from './logs.ts';
import { registerPriceRoutes } from './prices.ts';
import { registerReconcileRoutes } from './reconcile.ts';
import { registerChannelRoutes } from './channels.ts';
import { registerStatsRoutes } from './stats.ts';
import { registerTokenRoutes } from './tokens.ts';
import { registerAccountRoutes } from './accounts.ts';
import { registerTaskRoutes } from './tasks.ts';
import { registerWebhookRoutes } from './webhooks.ts';

export async function registerAdminRoutes(scope: FastifyInstance, deps: GatewayDeps): Promise<void> {
  requireAdmin(scope, deps);
  // An empty JSON body is no body: POST /admin/tokens/{id}/rotate, .../enable and the like need none.
  useJsonBodyParser(scope, 'absent', deps.config);
  registerTokenRoutes(scope, deps);
  registerAccountRoutes(scope, deps);
  registerChannelRoutes(scope, deps);
  registerAuditRoutes(scope, deps);
  registerLedgerRoutes(scope, deps);
  registerLogRoutes(scope, deps);
  registerBillRoutes(scope, deps);
  registerPriceRoutes(scope, deps);
  registerReconcileRoutes(scope, deps);
  registerTaskRoutes(scope, deps);
  registerStatsRoutes(scope, deps);
  registerWebhookRoutes(scope, deps);
}
