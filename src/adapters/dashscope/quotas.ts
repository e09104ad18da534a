// The account's rate limits per model, read from DashScope's quota list (GET /api/v1/quotas, every page) with the
// channel's key: Upstream.readLimits for DashScope. [I] The documents name the workspace host
// ({WorkspaceId}.<region>.maas.aliyuncs.com) for this endpoint; it is asked at the channel's base URL, so a channel
// whose limits should be read names that host.
import { GatewayError } from '../../errors/gateway-error.ts';
import type { Channel } from '../../routing/channel-registry.ts';
import { apiKeyTarget } from '../../routing/channel-target.ts';
import type { UpstreamClient } from '../http-client.ts';
import { readJsonOrStatus } from '../read-json.ts';
import { PROBE_TIMEOUT_MS } from '../probe.ts';
import { retryAfterMs } from '../retry-after.ts';
import type { UpstreamModelLimits } from '../types.ts';
import { dashscopeError } from './errors.ts';
import { mergeLimits, parseQuotaPage } from './quota-answer.ts';

export const QUOTAS_PATH = '/api/v1/quotas';
/** [I] The largest page the endpoint takes is not documented. */
const PAGE_SIZE = 100;
/** A bound on the pages read, should an answer never say it is the last. */
const MAX_PAGES = 50;

/** Every model's limits under the channel's key; throws a GatewayError when the list cannot be read. */
export async function readDashscopeLimits(
  client: UpstreamClient,
  ch: Channel,
): Promise<ReadonlyMap<string, UpstreamModelLimits>> {
  const target = apiKeyTarget(ch);
  const limits = new Map<string, UpstreamModelLimits>();
  let seen = 0;
  for (let page = 1; page <= MAX_PAGES; page++) {
    const res = await client.request({
      method: 'GET',
      baseUrl: target.baseUrl,
      path: `${QUOTAS_PATH}?page_no=${page}&page_size=${PAGE_SIZE}`,
      headers: { authorization: `Bearer ${target.apiKey}`, accept: 'application/json' },
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
      timeouts: { headersMs: PROBE_TIMEOUT_MS },
    });
    const json = await readJsonOrStatus(res, dashscopeError);
    if (res.statusCode >= 400) throw dashscopeError(res.statusCode, json, retryAfterMs(res.headers['retry-after']));
    const parsed = parseQuotaPage(json);
    if (parsed === null) throw new GatewayError('upstream_error', 'The upstream quota list could not be read');
    mergeLimits(limits, parsed.entries);
    seen += parsed.entries.length;
    // The last page: all the answer counts were seen, or (without a count) a page short of its size.
    if (
      parsed.entries.length === 0 ||
      (parsed.total !== null ? seen >= parsed.total : parsed.entries.length < (parsed.pageSize ?? PAGE_SIZE))
    )
      break;
  }
  return limits;
}
