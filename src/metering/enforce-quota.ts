import type { FastifyRequest } from 'fastify';
import type { Meter } from './types.ts';

/**
 * For capability routes (chat, embeddings, images, video creation …): call once at the start of a metered
 * request, after auth and before contacting the upstream:
 *
 *   await enforceQuota(deps.meter, req);
 *
 * Throws `insufficient_quota` (HTTP 429, rendered in the request's family shape) when the token's quota is
 * already exhausted (spent + held + still-queued charges ≥ quota). Unmetered endpoints (GET /v1/models, task
 * queries) must not call it. Tokens without a quota always pass.
 */
export async function enforceQuota(meter: Meter, req: FastifyRequest): Promise<void> {
  const p = req.state?.principal;
  if (p) await meter.assertQuota(p.tokenId);
}
