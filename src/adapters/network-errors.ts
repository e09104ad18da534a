// Network failures become GatewayErrors here, so adapters only deal with HTTP answers.
import { errors as undiciErrors } from 'undici';
import { GatewayError } from '../errors/gateway-error.ts';

// Connection-phase failures: the request never reached the upstream, so repeating it is always safe.
const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Map a transport failure to a gateway error (never exposing the upstream address).
 * `upstream_unreachable` means "certainly not sent" (retry-safe for anything); a timeout, reset or close after
 * the request went out is marked mayHaveRun, since the upstream may be acting on it.
 */
export function networkError(e: unknown): GatewayError {
  if (e instanceof GatewayError) return e;
  const code = (e as { code?: string })?.code ?? '';
  if (e instanceof undiciErrors.ConnectTimeoutError || CONNECT_CODES.has(code)) {
    return new GatewayError('upstream_unreachable', 'The upstream could not be reached', { cause: e });
  }
  if (e instanceof undiciErrors.HeadersTimeoutError || e instanceof undiciErrors.BodyTimeoutError) {
    return new GatewayError('upstream_timeout', 'The upstream did not answer in time', { cause: e, mayHaveRun: true });
  }
  // Only the caller's signal aborts a call (deadlines abort with the timeout errors above): its client left.
  if (e instanceof undiciErrors.RequestAbortedError || (e as Error)?.name === 'AbortError') {
    return new GatewayError('upstream_error', 'The upstream request was aborted', {
      cause: e,
      mayHaveRun: true,
      callerAborted: true,
    });
  }
  return new GatewayError('upstream_error', 'The upstream connection was closed unexpectedly', {
    cause: e,
    mayHaveRun: true,
  });
}
