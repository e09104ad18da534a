// Operations endpoints, outside both API families: liveness (GET /healthz), readiness (GET /readyz) and the
// Prometheus metrics (GET /metrics). The probes need no credential; /metrics takes TOLLWAY_METRICS_TOKEN or the
// admin key (docs/operations.md).
import type { FastifyInstance } from 'fastify';
import { safeEqual } from '../../auth/token-secret.ts';
import type { GatewayDeps } from '../../core/deps.ts';
import { checkAdminKey } from '../../core/console/sessions.ts';
import { checkReadiness } from '../../core/readiness.ts';
import { GatewayError } from '../../errors/gateway-error.ts';

/** A scrape's bearer: the metrics token when one is configured, or the admin key (a wrong one counted: checkAdminKey). */
async function checkScraper(authorization: string | undefined, client: string, deps: GatewayDeps): Promise<void> {
  const m = authorization ? /^Bearer\s+(.+)$/i.exec(authorization.trim()) : null;
  if (!m) throw new GatewayError('missing_token', 'GET /metrics requires Authorization: Bearer <metrics token or admin key>');
  const given = m[1]!.trim();
  const token = deps.config.metricsToken;
  if (token !== undefined && safeEqual(given, token)) return;
  await checkAdminKey(deps.adminKeys, given, client, 'a metrics token or the admin key');
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
