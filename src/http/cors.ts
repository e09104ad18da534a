// Cross-origin access for browser clients (TOLLWAY_CORS_ORIGINS; off by default). Both fronts apply these rules
// through front/ (fastify-front.ts, the lane): a preflight (OPTIONS with Access-Control-Request-Method) from an allowed
// origin is answered 204
// before any authentication; every other answer to an allowed origin carries the origin back and exposes the
// headers a client reads (request ids, rate-limit state, Retry-After). An origin not allowed gets no CORS header,
// so the browser refuses the answer to its page.
import type { CorsConfig } from '../config/config.ts';

const ALLOWED_METHODS = 'GET, POST, PATCH, PUT, DELETE, OPTIONS';

// The request headers the official SDKs and plain clients send: credentials, content, the messages API's version
// and beta headers (both spellings), idempotency and the SDKs' own x-stainless-* telemetry.
const ALLOWED_HEADERS = new Set([
  'authorization',
  'content-type',
  'x-api-key',
  'accept',
  'messages-version',
  'messages-beta',
  'idempotency-key',
  'x-request-id',
]);
const ALLOWED_PREFIXES = ['x-stainless-', 'anthropic-', 'openai-'];

export const EXPOSED_HEADERS = [
  'x-gateway-request-id',
  'x-request-id',
  'request-id',
  'retry-after',
  'x-should-retry',
  'x-ratelimit-limit-requests',
  'x-ratelimit-remaining-requests',
  'x-ratelimit-reset-requests',
  'x-ratelimit-limit-tokens',
  'x-ratelimit-remaining-tokens',
  'x-ratelimit-reset-tokens',
  'anthropic-ratelimit-requests-limit',
  'anthropic-ratelimit-requests-remaining',
  'anthropic-ratelimit-requests-reset',
  'anthropic-ratelimit-tokens-limit',
  'anthropic-ratelimit-tokens-remaining',
  'anthropic-ratelimit-tokens-reset',
].join(', ');

function allowedOrigin(cors: CorsConfig | null, origin: string | undefined): boolean {
  if (cors === null || origin === undefined || origin === '') return false;
  return cors.origins === '*' || cors.origins.has(origin.toLowerCase());
}

function headerAllowed(name: string): boolean {
  return ALLOWED_HEADERS.has(name) || ALLOWED_PREFIXES.some((p) => name.startsWith(p));
}

/** The CORS headers of an ordinary answer to `origin`, or null (CORS off, no Origin, or an origin not allowed). */
export function corsHeaders(cors: CorsConfig | null, origin: string | undefined): Record<string, string> | null {
  if (!allowedOrigin(cors, origin)) return null;
  return { 'access-control-allow-origin': origin!, 'access-control-expose-headers': EXPOSED_HEADERS, vary: 'Origin' };
}

/**
 * The answer to a preflight, or null when it is not one this gateway answers (CORS off, the origin not allowed,
 * or not a preflight at all): then the request takes its ordinary path. Requested headers are allowed when each
 * is one a client may send; otherwise the list is left out and the browser refuses the call.
 */
export function preflightHeaders(
  cors: CorsConfig | null,
  method: string,
  headers: {
    origin?: string | undefined;
    'access-control-request-method'?: string | undefined;
    'access-control-request-headers'?: string | undefined;
  },
): Record<string, string> | null {
  if (method !== 'OPTIONS' || headers['access-control-request-method'] === undefined) return null;
  if (!allowedOrigin(cors, headers.origin)) return null;
  const out: Record<string, string> = {
    ...corsHeaders(cors, headers.origin),
    'access-control-allow-methods': ALLOWED_METHODS,
    'access-control-max-age': '600',
  };
  const requested = (headers['access-control-request-headers'] ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  if (requested.every(headerAllowed) && requested.length > 0)
    out['access-control-allow-headers'] = requested.join(', ');
  out.vary = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers';
  return out;
}
