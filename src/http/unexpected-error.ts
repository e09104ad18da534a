// An error no layer turned into a GatewayError: the store out of reach (down, restarting) is a 503 that says so and
// that the client can retry; anything else is a 500.
import { GatewayError } from '../errors/gateway-error.ts';
import { isStoreUnreachable } from '../store/store-errors.ts';

export function unexpectedError(err: unknown): GatewayError {
  if (isStoreUnreachable(err)) {
    return new GatewayError('service_unavailable', 'The gateway cannot reach its database right now; retry shortly', {
      cause: err,
      headers: { 'retry-after': '1' },
    });
  }
  return new GatewayError('internal_error', 'Internal error', { cause: err });
}
