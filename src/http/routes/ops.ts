// Operations endpoints, outside both API families: liveness (GET /healthz), readiness (GET /readyz) and the
// Prometheus metrics (GET /metrics). The probes need no credential; /metrics takes TOLLWAY_METRICS_TOKEN or the
// admin key (docs/operations.md).
import type { FastifyInstance } from 'fastify';
import { bearerOf } from '../../auth/token-auth.ts';
import type { GatewayDeps } from '../../core/deps.ts';
import { checkAdminKey } from '../../core/console/sessions.ts';
import { checkReadiness } from '../../core/readiness.ts';
import { GatewayError } from '../../errors/gateway-error.ts';

/** A scrape's bearer: the metrics token when one is configured, or the admin key — both refused unseen while the address is locked out, a wrong one counted (checkAdminKey). */
async function checkScraper(authorization: string | undefined, client: string, deps: GatewayDeps): Promise<void> {
  const key = authorization ? bearerOf(authorization) : undefined;
  if (!key) throw new GatewayError('missing_token', 'GET /metrics requires Authorization: Bearer <metrics token or admin key>');
  await checkAdminKey(deps.adminKeys, key, client, 'a metrics token or the admin key', deps.config.metricsToken);
}

export function registerOpsRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  // Liveness: the process serves HTTP. Nothing else is asked, so a slow database never gets a live process restarted.
  app.get('/healthz', async () => ({ status: 'ok' }));

  // Readiness: this instance can serve calls; a load balancer sends traffic only while it answers 200.
  app.get('/readyz', async () => {
    const r = await checkReadiness(deps);
    if (!r.ready) throw new GatewayError('service_unavailable', `Not ready: ${r.problems.join('; ')}`);
    return { status: 'ready', checks: r.checks };
  });

  app.get('/metrics', async (req, reply) => {
    await checkScraper(req.headers.authorization, req.state.client, deps);
    const { contentType, text } = await deps.metrics.scrape();
    return reply.type(contentType).send(text);
  });
}
