// Admission (the token and its limits) and the record at the end of every request (the access line, metrics, the
// trace span and the request-log row), with the concurrency slot held between them.
import type { ServerResponse } from 'node:http';
import type { GatewayDeps } from '../../core/deps.ts';
import type { Family } from '../../errors/render.ts';
import { hasLimits } from '../../limits/rate-limiter.ts';
import { accessLogger } from '../access-log.ts';
import type { RequestState } from '../request-state.ts';

/**
 * Authenticate the request's credential (token-auth.ts: credentialFrom / credentialOf) and apply the token's limits.
 * A cached token without limits (the common case) is admitted synchronously — null, no promise per request; a cache
 * miss or a token with limits returns a promise. A token with a requests or tokens limit gets the rate-limit headers
 * on every answer, in its family's convention (the messages API: Anthropic's; the others: OpenAI's): set on the
 * response here, so whatever writes the answer (either front) sends them.
 * Auth failures throw (synchronously or through the promise) as GatewayErrors.
 */
export function admit(
  deps: GatewayDeps,
  credential: string | undefined,
  state: RequestState,
  res: ServerResponse,
  family: Family,
): Promise<void> | null {
  // The connection: a keep-alive client's repeated credential is hashed once per connection (token-auth.ts).
  const connection = res.socket ?? undefined;
  const principal = deps.tokenAuth.authenticateCached(credential, Date.now(), connection);
  if (principal && !hasLimits(principal)) {
    state.principal = principal;
    return null;
  }
  return (async () => {
    const p = principal ?? (await deps.tokenAuth.authenticate(credential, Date.now(), connection));
    state.principal = p;
    if (!hasLimits(p)) return;
    const { release, headers } = await deps.limiter.admit(p, family === 'messages' ? 'anthropic' : 'openai');
    if (release) holdSlot(state, release);
    if (headers) for (const k in headers) res.setHeader(k, headers[k]!);
  })();
}

/**
 * A concurrency slot counts a call in flight: it is held until the request's record (requestRecorder), which both
 * fronts write once the route has settled and the response is over. Tied to the response's 'close' instead, a client
 * that hung up would free the slot of a call still running (and charged) upstream, and a client gone before its
 * admission finished would never free it.
 */
function holdSlot(state: RequestState, release: () => void): void {
  if (state.recorded) release();
  else state.slot = release;
}

/** Give back the request's slot, if it holds one (once). */
function releaseSlot(state: RequestState): void {
  const release = state.slot;
  if (release === null) return;
  state.slot = null;
  release();
}

/** Give back the call's upstream admission, its token estimate corrected by the tokens it reported. */
function settleCapacity(state: RequestState): void {
  const t = state.capacity!;
  state.capacity = null;
  t.settle(state.tokens ? state.tokens : undefined);
}

export interface Finished {
  id: string;
  method: string;
  /** The route's path (no query string). */
  endpoint: string;
  status: number;
  state: RequestState;
}

/**
 * The end of every request: one access line (request id on it, no bodies, no secrets), its metrics, the end of its
 * trace span when tracing is on and, for a caller we know, a request-log row.
 */
export function requestRecorder(deps: GatewayDeps): (f: Finished) => void {
  const access = accessLogger(deps.logger);
  return (f) => {
    const st = f.state;
    st.recorded = true;
    releaseSlot(st);
    if (st.capacity !== null) settleCapacity(st);
    const latencyMs = Math.round((performance.now() - st.startedAt) * 100) / 100;
    access({
      requestId: f.id,
      method: f.method,
      path: f.endpoint,
      status: f.status,
      latencyMs,
      client: st.client,
      tokenId: st.principal?.tokenId,
      model: st.model,
      errorCode: st.errorCode,
      upstreamRequestId: st.upstreamRequestId,
      upstreamError: st.upstreamError,
    });
    const route = deps.metrics.request(f.endpoint, st.model, f.status, latencyMs, st.errorCode);
    deps.moneyMetrics.answered(st.model, st.usage);
    if (st.trace !== null) st.trace.end(route, f.status, st);
    if (!st.principal) return;
    // A settled call's tokens count against its token's tokens-per-minute window.
    if (st.tokens && st.principal.tpmLimit !== null) void deps.limiter.addTokens(st.principal, st.tokens);
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
      upstreamError: st.upstreamError,
      channelId: st.channelId,
      attempts: st.attempts,
      ttfbMs: st.ttfbMs,
      createdAt: Date.now(),
    });
  };
}
