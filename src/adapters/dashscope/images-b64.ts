// b64_json when the upstream answered with URLs: download each result through src/net, which only
// fetches from the configured result hosts (never a client-supplied URL), with a size cap and timeout.
import { GatewayError } from '../../errors/gateway-error.ts';
import type { OutboundPolicy, SafeNet } from '../../net/index.ts';

export const RESULT_MAX_BYTES = 25 * 1024 * 1024;
export const RESULT_TIMEOUT_MS = 30_000;

export interface B64Outcome {
  /** Base64 of every result that downloaded, in the upstream's order. */
  b64: string[];
  /** Why the others did not. */
  failures: GatewayError[];
}

export interface DownloadLimits {
  maxBytes?: number;
  timeoutMs?: number;
}

export async function downloadAsBase64(
  net: Pick<SafeNet, 'fetch'>,
  urls: string[],
  policy: OutboundPolicy,
  limits: DownloadLimits = {},
): Promise<B64Outcome> {
  const settled = await Promise.allSettled(
    urls.map((u) =>
      net.fetch(u, {
        ...policy,
        maxBytes: limits.maxBytes ?? RESULT_MAX_BYTES,
        timeoutMs: limits.timeoutMs ?? RESULT_TIMEOUT_MS,
      }),
    ),
  );
  const out: B64Outcome = { b64: [], failures: [] };
  for (const s of settled) {
    if (s.status === 'fulfilled') out.b64.push(s.value.body.toString('base64'));
    else
      out.failures.push(
        s.reason instanceof GatewayError
          ? s.reason
          : new GatewayError('download_failed', 'The result could not be downloaded', { cause: s.reason }),
      );
  }
  return out;
}
