// A channel check for the operator: the cheapest authenticated call each upstream answers — the model list of the
// DashScope compatible mode, one item of the Kling text-to-video task list. Nothing is generated or billed.
import { isObject } from '../contracts/fields.ts';
import type { Channel } from '../routing/channel-registry.ts';
import { apiKeyTarget } from '../routing/channel-target.ts';
import { dashscopeError } from './dashscope/errors.ts';
import { readJson, type UpstreamClient } from './http-client.ts';
import type { KlingClient } from './kling/client.ts';

/** How long a check may wait for the upstream's answer. */
export const PROBE_TIMEOUT_MS = 10_000;

export class ChannelProber {
  constructor(
    private readonly upstream: UpstreamClient,
    private readonly kling: KlingClient,
  ) {}

  /** Resolves with the upstream request id when the upstream accepted the channel's credentials; throws a GatewayError otherwise. */
  async probe(ch: Channel): Promise<{ upstreamRequestId: string | null }> {
    if (ch.kind === 'kling') {
      const r = await this.kling.call(ch, 'GET', '/v1/videos/text2video?pageNum=1&pageSize=1', undefined, { timeoutMs: PROBE_TIMEOUT_MS });
      return { upstreamRequestId: r.upstreamRequestId };
    }
    const target = apiKeyTarget(ch);
    const res = await this.upstream.request({
      method: 'GET',
      baseUrl: target.baseUrl,
      path: '/compatible-mode/v1/models',
      headers: { authorization: `Bearer ${target.apiKey}`, accept: 'application/json' },
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
      timeouts: { headersMs: PROBE_TIMEOUT_MS },
    });
    let json: unknown;
    try {
      json = await readJson(res);
    } catch (e) {
      if (res.statusCode >= 400) throw dashscopeError(res.statusCode, undefined);
      throw e;
    }
    if (res.statusCode >= 400) throw dashscopeError(res.statusCode, json);
    const rid = res.headers['x-request-id'] ?? res.headers['x-dashscope-request-id'];
    return { upstreamRequestId: typeof rid === 'string' ? rid : isObject(json) && typeof json.request_id === 'string' ? json.request_id : null };
  }
}
