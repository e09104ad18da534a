// One Kling call: sign the JWT for the channel, send JSON, unwrap the envelope. Returns `data`
// (still `unknown`) and the upstream request id; non-zero codes become GatewayErrors.
import { isObject } from '../../json/json.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { Channel } from '../../routing/channel-registry.ts';
import type { UpstreamClient } from '../http-client.ts';
import { readJsonOrStatus } from '../read-json.ts';
import { retryAfterMs } from '../retry-after.ts';
import { klingError } from './errors.ts';
import type { KlingJwtSigner } from './jwt.ts';
import type { CallLimit } from '../../tasks/types.ts';

export interface KlingReply {
  data: unknown;
  upstreamRequestId: string | null;
}

/** How long a call without its own limit (a creation) may wait for the upstream's first byte. */
export const CALL_FIRST_BYTE_MS = 60_000;

export class KlingClient {
  constructor(
    private readonly upstream: UpstreamClient,
    private readonly signer: KlingJwtSigner,
  ) {}

  async call(
    channel: Channel,
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    limit?: CallLimit,
  ): Promise<KlingReply> {
    const { accessKey, secretKey } = channel.keys;
    if (!accessKey || !secretKey)
      throw new GatewayError('no_channel', 'The video channel has no access key / secret key configured');
    const jwt = await this.signer.token(accessKey, secretKey);
    const headers: Record<string, string> = { authorization: `Bearer ${jwt}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await this.upstream.request({
      method,
      baseUrl: channel.baseUrl,
      path,
      headers,
      body: body === undefined ? null : JSON.stringify(body),
      timeouts: limit ? { headersMs: limit.timeoutMs, bodyIdleMs: limit.timeoutMs } : { headersMs: CALL_FIRST_BYTE_MS },
    });
    const json = await readJsonOrStatus(res, klingError);
    const upstreamRequestId = isObject(json) && typeof json.request_id === 'string' ? json.request_id : null;
    if (res.statusCode >= 400 || !isObject(json) || json.code !== 0)
      throw klingError(res.statusCode, json, retryAfterMs(res.headers['retry-after']));
    return { data: json.data, upstreamRequestId };
  }
}
