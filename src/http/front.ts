// The rules every request follows, whichever front serves it (Fastify for most routes, the text lane for the hot
// text routes — lane/text-lane.ts): one function each, called by both. In order: a fresh request state, the drain
// refusal, the URL rules (no encoded NUL; the path percent-decoded as the router decodes it), admission (token,
// limits), the error answer in the family's shape, the client that leaves (499), and the record at the end (the
// access line and the request-log row).
import type { ServerResponse } from 'node:http';
import { GatewayError } from '../errors/gateway-error.ts';
import { redactSecrets } from '../errors/redact.ts';
import { accessLogger } from './access-log.ts';
import type { GatewayDeps } from '../core/deps.ts';
import type { RequestState } from './request-state.ts';
import { REQUEST_ID_HEADER } from './request-id.ts';
import { hasLimits } from '../limits/rate-limiter.ts';
import proxyAddr from '@fastify/proxy-addr';
import type { TrustProxy } from '../config/trust-proxy.ts';

export { corsHeaders, preflightHeaders } from './cors.ts';

/**
 * The request id under every name a client reads, on every answer: ours, `x-request-id` (the openai SDK's
 * `_request_id`) and `request-id` (the Anthropic SDK's `_request_id` and `err.requestID`).
 */
export const REQUEST_ID_HEADERS = [REQUEST_ID_HEADER, 'x-request-id', 'request-id'] as const;

/** The answer to a request that arrives while the gateway drains: retry elsewhere, and this connection closes. */
export function shuttingDown(): GatewayError {
  return new GatewayError('service_unavailable', 'The gateway is shutting down; retry the request', { headers: { connection: 'close', 'retry-after': '1' } });
}

/** An encoded NUL anywhere in the URL: no id, name or query value can hold one, and PostgreSQL refuses it in text. */
export function checkUrl(url: string): void {
  if (url.includes('%00')) throw new GatewayError('invalid_request', 'The request URL contains an encoded NUL character (%00)');
}

/**
 * The route path of a URL as the router sees it: no query string, no trailing slash, percent-escapes decoded
 * (`/v1/chat/completion%73` is `/v1/chat/completions`, as Fastify's router decodes `/v1/model%73`). Null when
 * the escapes are malformed (the framework answers those).
 */
export function routePath(url: string): string | null {
  const q = url.indexOf('?');
  let path = q < 0 ? url : url.slice(0, q);
  if (path.includes('%')) {
    try {
      path = decodeURIComponent(path);
    } catch {
      return null;
    }
  }
  if (path.length > 1 && path.charCodeAt(path.length - 1) === 47 /* / */) path = path.slice(0, -1);
  return path;
}

/**
 * The client closed its connection before the whole answer was written: the request's record says so — 499, the
 * usual "client closed request" status, when nothing was answered. Returns true when the answer was not complete.
 */
export function markClientLeft(state: RequestState, res: ServerResponse): boolean {
  if (res.writableFinished) return false;
  state.errorCode ??= 'client_closed';
  if (!res.headersSent) res.statusCode = 499;
  return true;
}

/**
 * The headers of an error answer: the error's own; `x-should-retry: false` for an exhausted quota (the SDKs would
 * otherwise retry a 429 that only a top-up can cure); and an error answered before the request body was read closes
 * the connection, so an unread body cannot hold it.
 */
export function errorHeaders(err: GatewayError, bodyRead: boolean): Record<string, string> | undefined {
  if (bodyRead && err.code !== 'insufficient_quota') return err.headers;
  return { ...err.headers, ...(err.code === 'insufficient_quota' ? { 'x-should-retry': 'false' } : {}), ...(bodyRead ? {} : { connection: 'close' }) };
}

/**
 * The error the request is answered with, as its record keeps it: the catalogue code, the upstream's request id and
 * — for operators only — the upstream's own words (secrets scrubbed; the client's answer has our words only).
 */
export function noteError(state: RequestState, err: GatewayError): void {
  state.errorCode = err.code;
  if (err.upstreamRequestId) state.upstreamRequestId = err.upstreamRequestId;
  if (err.upstreamMessage !== undefined) state.upstreamError = redactSecrets(err.upstreamMessage);
}

export function newRequestState(client = ''): RequestState {
  // Every field present from the start (tokens too): one object shape for every request.
  return { startedAt: performance.now(), client, principal: null, consoleSession: null, model: null, usage: null, amount: 0, tokens: 0, upstreamRequestId: null, errorCode: null, upstreamError: null, channelId: null, attempts: null, ttfbMs: null, trace: null, slot: null, recorded: false };
}

/** Is the address at hop `i` (0: the connection's peer, 1: the right-most X-Forwarded-For entry, …) a trusted proxy? */
function trustFunction(t: TrustProxy): ((address: string, hop: number) => boolean) | null {
  if (t === null) return null;
  if ('hops' in t) {
    const n = t.hops;
    return (_a, hop) => hop < n;
  }
  return proxyAddr.compile([...t.addresses]);
}

/** Is the connection's peer a proxy TOLLWAY_TRUST_PROXY trusts (so its X-Forwarded-* headers may be believed)? */
export function peerIsTrustedProxy(trustProxy: TrustProxy): (peer: string | undefined) => boolean {
  const trust = trustFunction(trustProxy);
  return (peer) => trust !== null && peer !== undefined && trust(peer, 0);
}

/** The longest client address kept: an X-Forwarded-For entry is the sender's text. */
const MAX_CLIENT = 100;

/**
 * The client's address, the one rule for every use (the console's sign-in limit, the access line): the connection's
 * peer; or, with TOLLWAY_TRUST_PROXY, walking X-Forwarded-For from the right while the hop is a trusted proxy, the
 * first address that is not (as Fastify's and Express's trustProxy). Off, the header is never read, so a forged one
 * changes nothing.
 */
export function clientAddress(trustProxy: TrustProxy): (peer: string | undefined, forwardedFor: string | string[] | undefined) => string {
  const trust = trustFunction(trustProxy);
  return (peer, forwardedFor) => {
    let addr = peer ?? '';
    if (trust === null || forwardedFor === undefined || !trust(addr, 0)) return addr;
    const hops = (typeof forwardedFor === 'string' ? forwardedFor : forwardedFor.join(',')).split(',');
    for (let i = hops.length - 1, hop = 1; i >= 0; i--) {
      const h = hops[i]!.trim();
      if (h === '') continue;
      addr = h;
      if (!trust(h, hop++)) break;
    }
    return addr.length > MAX_CLIENT ? addr.slice(0, MAX_CLIENT) : addr;
  };
}

/**
 * Authenticate the request's credential (token-auth.ts: credentialFrom / credentialOf) and apply the token's limits.
 * A cached token without limits (the common case) is admitted synchronously — null, no promise per request; a cache
 * miss or a token with limits returns a promise. A token with a requests or tokens limit gets the x-ratelimit-*
 * headers on every answer: set on the response here, so whatever writes the answer (either front) sends them.
 * Auth failures throw (synchronously or through the promise) as GatewayErrors.
 */
export function admit(deps: GatewayDeps, credential: string | undefined, state: RequestState, res: ServerResponse): Promise<void> | null {
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
    const { release, headers } = await deps.limiter.admit(p);
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

/** The first byte of the answer goes out now: its time since arrival is the request's time to first byte (once). */
export function markFirstByte(state: RequestState): void {
  if (state.ttfbMs === null) state.ttfbMs = Math.round(performance.now() - state.startedAt);
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
    const latencyMs = Math.round((performance.now() - st.startedAt) * 100) / 100;
    access({ requestId: f.id, method: f.method, path: f.endpoint, status: f.status, latencyMs, client: st.client, tokenId: st.principal?.tokenId, model: st.model, errorCode: st.errorCode, upstreamRequestId: st.upstreamRequestId, upstreamError: st.upstreamError });
    const route = deps.metrics.request(f.endpoint, st.model, f.status, latencyMs);
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
