import type { Principal } from '../auth/principal.ts';
import { GatewayError } from '../errors/gateway-error.ts';

/** Per-request facts gathered along the way and written to the request log at the end. */
export interface RequestState {
  /** performance.now() when the request arrived (ms, sub-ms precision; a number, not a BigInt per request). */
  startedAt: number;
  principal: Principal | null;
  model: string | null;
  usage: unknown;
  amount: number;
  upstreamRequestId: string | null;
  errorCode: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    state: RequestState;
  }
}

/** Anything carrying a request state: a Fastify request or a text-lane exchange. */
export interface HasState {
  state: RequestState;
}

export function principalOf(req: HasState): Principal {
  const p = req.state.principal;
  if (!p) throw new GatewayError('missing_token', 'Missing bearer token: send Authorization: Bearer <token>');
  return p;
}
