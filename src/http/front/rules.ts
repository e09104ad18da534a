// The rules every request meets first, whichever front serves it (Fastify, or the text lane): the request id's
// names, the drain refusal, the URL rules and the route path, the error answer's headers, a fresh request state.
import { GatewayError } from '../../errors/gateway-error.ts';
import type { RequestState } from '../request-state.ts';
import { REQUEST_ID_HEADER } from '../request-id.ts';

export { corsHeaders, preflightHeaders } from '../cors.ts';

/**
 * The request id under every name a client reads, on every answer: ours, `x-request-id` (the openai SDK's
 * `_request_id`) and `request-id` (the Anthropic SDK's `_request_id` and `err.requestID`).
 */
export const REQUEST_ID_HEADERS = [REQUEST_ID_HEADER, 'x-request-id', 'request-id'] as const;

/** The answer to a request that arrives while the gateway drains: retry elsewhere, and this connection closes. */
export function shuttingDown(): GatewayError {
  return new GatewayError('service_unavailable', 'The gateway is shutting down; retry the request', {
    headers: { connection: 'close', 'retry-after': '1' },
  });
}

/**
 * The headers of an error answer: the error's own; `x-should-retry: false` for an exhausted quota (the SDKs would
 * otherwise retry a 429 that only a top-up can cure); and an error answered before the request body was read closes
 * the connection, so an unread body cannot hold it.
 */
export function errorHeaders(err: GatewayError, bodyRead: boolean): Record<string, string> | undefined {
  if (bodyRead && err.code !== 'insufficient_quota') return err.headers;
  return {
    ...err.headers,
    ...(err.code === 'insufficient_quota' ? { 'x-should-retry': 'false' } : {}),
    ...(bodyRead ? {} : { connection: 'close' }),
  };
}

export function newRequestState(client = ''): RequestState {
  // Every field present from the start (tokens too): one object shape for every request.
  return {
    startedAt: performance.now(),
    client,
    principal: null,
    consoleSession: null,
    staff: null,
    model: null,
    usage: null,
    amount: 0,
    tokens: 0,
    upstreamRequestId: null,
    errorCode: null,
    upstreamError: null,
    channelId: null,
    attempts: null,
    ttfbMs: null,
    reserved: false,
    trace: null,
    slot: null,
    recorded: false,
    capacity: null,
    capacityWait: null,
    gated: false,
  };
}

/** The first byte of the answer goes out now: its time since arrival is the request's time to first byte (once). */
export function markFirstByte(state: RequestState): void {
  if (state.ttfbMs === null) state.ttfbMs = Math.round(performance.now() - state.startedAt);
}

/**
 * The URL rules, the same on both fronts. An encoded NUL anywhere: no id, name or query value can hold one, and
 * PostgreSQL refuses it in text. An encoded `/` (%2F) in the path: refused as an unknown path (404 in the family's
 * shape) on every route — decoded it would name another route on one front and nothing on the other, and no id,
 * model name or other path segment of ours holds a `/`. A query may hold both escapes' `/` (only NUL is refused).
 */
export function checkUrl(url: string): void {
  if (url.indexOf('%') < 0) return;
  if (url.includes('%00'))
    throw new GatewayError('invalid_request', 'The request URL contains an encoded NUL character (%00)');
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  if (ENCODED_SLASH.test(path)) throw new GatewayError('not_found', `Unknown path ${path}`);
}

const ENCODED_SLASH = /%2f/i;

/**
 * The route path of a URL as the router (find-my-way) sees it: no query string, no trailing slash, percent-escapes
 * decoded with decodeURI — reserved characters (`/`, `?`, `#`, `:` …) stay encoded, as the router leaves them
 * (`/v1/chat/completion%73` is `/v1/chat/completions`, as `/v1/model%73` is `/v1/models`). Null when the escapes
 * are malformed (the framework answers those).
 */
export function routePath(url: string): string | null {
  const q = url.indexOf('?');
  let path = q < 0 ? url : url.slice(0, q);
  if (path.includes('%')) {
    try {
      path = decodeURI(path);
    } catch {
      return null;
    }
  }
  if (path.length > 1 && path.charCodeAt(path.length - 1) === 47 /* / */) path = path.slice(0, -1);
  return path;
}
