// The steps every request shares, whichever front serves it (Fastify for most routes, the text lane for the
// hot text routes — see lane/text-lane.ts): a fresh request state, admission (token, limits), and the record
// at the end (the access line and the request-log row).
import type { ServerResponse } from 'node:http';
import { GatewayError } from '../errors/gateway-error.ts';
import { accessLogger } from './access-log.ts';
import type { AppDeps } from './deps.ts';
import type { RequestState } from './request-state.ts';

/** The answer to a request that arrives while the gateway drains: retry elsewhere, and this connection closes. */
export function shuttingDown(): GatewayError {
  return new GatewayError('service_unavailable', 'The gateway is shutting down; retry the request', { headers: { connection: 'close', 'retry-after': '1' } });
}

export function newRequestState(): RequestState {
  return { startedAt: performance.now(), principal: null, model: null, usage: null, amount: 0, upstreamRequestId: null, errorCode: null };
}

/**
 * Authenticate the request's credential (token-auth.ts: credentialFrom / credentialOf) and apply the token's limits.
 * A cached token without limits (the common case) is admitted synchronously — null, no promise per request; a cache
 * miss or a token with limits returns a promise.
 * Auth failures throw (synchronously or through the promise) as GatewayErrors.
 */
export function admit(deps: AppDeps, credential: string | undefined, state: RequestState, res: ServerResponse): Promise<void> | null {
  const principal = deps.tokenAuth.authenticateCached(credential);
  // Same rule as RateLimiter.admit: a token with neither limit has nothing to admit.
  if (principal && principal.rpmLimit === null && principal.concurrencyLimit === null) {
    state.principal = principal;
    return null;
  }
  return (async () => {
    const p = principal ?? (await deps.tokenAuth.authenticate(credential));
    state.principal = p;
    const release = await deps.limiter.admit(p);
    if (release) res.once('close', release);
  })();
}

export interface Finished {
  id: string;
  method: string;
  /** The route's path (no query string). */
  endpoint: string;
  status: number;
  state: RequestState;
}

/** The end of every request: one access line (request id on it, no bodies, no secrets) and, for a caller we know, a request-log row. */
export function requestRecorder(deps: AppDeps): (f: Finished) => void {
  const access = accessLogger(deps.logger);
  return (f) => {
    const st = f.state;
    const latencyMs = Math.round((performance.now() - st.startedAt) * 100) / 100;
    access({ requestId: f.id, method: f.method, path: f.endpoint, status: f.status, latencyMs, tokenId: st.principal?.tokenId, model: st.model, errorCode: st.errorCode, upstreamRequestId: st.upstreamRequestId });
    if (!st.principal) return;
    deps.requestLog.write({
      requestId: f.id,
      tokenId: st.principal.tokenId,
      model: st.model,
      endpoint: f.endpoint,
      method: f.method,
      status: f.status,
      latencyMs: Math.round(latencyMs),
      usage: st.usage,
      amount: st.amount,
      upstreamRequestId: st.upstreamRequestId,
      errorCode: st.errorCode,
      createdAt: Date.now(),
    });
  };
}
