// An upstream body read whole as JSON, its failures as GatewayErrors.
import { GatewayError } from '../errors/gateway-error.ts';
import type { UpstreamResponse } from './http-client.ts';
import { networkError } from './network-errors.ts';

/** Read a whole (small) upstream body as JSON; malformed JSON is an upstream error, not a crash. */
export async function readJson(res: UpstreamResponse, maxBytes = 32 * 1024 * 1024): Promise<unknown> {
  let text: string;
  try {
    const buf = Buffer.from(await res.body.arrayBuffer());
    if (buf.length > maxBytes) throw new GatewayError('upstream_error', 'The upstream answer was too large');
    text = buf.toString('utf8');
  } catch (e) {
    throw networkError(e);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new GatewayError('upstream_error', 'The upstream returned a malformed response');
  }
}

/**
 * readJson for an answer whose error status outranks its body: an error status with an unreadable body is that status's
 * error.
 */
export async function readJsonOrStatus(
  res: UpstreamResponse,
  errorOf: (status: number, body: unknown) => Error,
): Promise<unknown> {
  try {
    return await readJson(res);
  } catch (e) {
    if (res.statusCode >= 400) throw errorOf(res.statusCode, undefined);
    throw e;
  }
}
