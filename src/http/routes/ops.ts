// Operations endpoints, outside both API families: liveness, readiness, the Prometheus metrics and the OpenAPI
// document. The probes and the document need no credential; the metrics take TOLLWAY_METRICS_TOKEN or the admin key
// (docs/operations.md).
import { bearerOf } from '../../auth/token-auth.ts';
import type { GatewayDeps } from '../../core/deps.ts';
import { checkAdminKey } from '../../core/console/sessions.ts';
import { checkReadiness } from '../../core/readiness.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { fastifyRoute, type Scope } from '../front/route-row.ts';
import { openApiDocument } from '../openapi/document.ts';

/**
 * A scrape's bearer: the metrics token when one is configured, or the admin key — both refused unseen while the address
 * is locked out, a wrong one counted (checkAdminKey).
 */
async function checkScraper(authorization: string | undefined, client: string, deps: GatewayDeps): Promise<void> {
  const key = authorization ? bearerOf(authorization) : undefined;
  if (!key)
    throw new GatewayError('missing_token', 'GET /metrics requires Authorization: Bearer <metrics token or admin key>');
  await checkAdminKey(deps.adminKeys, key, client, 'a metrics token or the admin key', deps.config.metricsToken);
}

/** The probes and /metrics sit at the root: no prefix, nothing of their own. */
export const OPS_SCOPE: Scope = { prefix: '' };

/** Liveness: the process serves HTTP. Nothing else is asked, so a slow database never gets a live process restarted. */
export const healthz = fastifyRoute(() => async () => ({ status: 'ok' }));

/** Readiness: this instance can serve calls; a load balancer sends traffic only while it answers 200. */
export const readyz = fastifyRoute(({ deps }) => async () => {
  const r = await checkReadiness(deps);
  if (!r.ready) throw new GatewayError('service_unavailable', `Not ready: ${r.problems.join('; ')}`);
  return { status: 'ready', checks: r.checks };
});

export const metrics = fastifyRoute(({ deps }) => async (req, reply) => {
  await checkScraper(req.headers.authorization, req.state.client, deps);
  const { contentType, text } = await deps.metrics.scrape();
  return reply.type(contentType).send(text);
});

/** The document of the routes this server serves, built on first request. */
export const openApi = fastifyRoute(({ rows }) => {
  let doc: Record<string, unknown> | null = null;
  return async () => (doc ??= openApiDocument(rows));
});
