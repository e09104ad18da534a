// Kling envelope errors ({code, message, request_id}, non-zero code) → GatewayError, keeping the
// vendor's meaning. Auth and account codes are the operator's problem, said so without details.
import { isObject } from '../../contracts/fields.ts';
import { isContentFilterCode } from '../../errors/content-filter.ts';
import type { ErrorCode } from '../../errors/codes.ts';
import { isClientCausedStatus } from '../../errors/client-caused.ts';
import { GatewayError } from '../../errors/gateway-error.ts';

/** The catalogue code for a Kling envelope code (HTTP status as a fallback). */
export function klingErrorCode(status: number, code: number | undefined): ErrorCode {
  if (code !== undefined) {
    if (code >= 1000 && code <= 1004) return 'upstream_auth_error';
    if (code >= 1100 && code <= 1103) return 'upstream_permission_denied';
    if (code === 1200 || code === 1201 || code === 1202) return 'upstream_invalid_request';
    if (code === 1203) return 'not_found';
    if (isContentFilterCode(code)) return 'upstream_content_filtered';
    if (code === 1302) return 'upstream_rate_limited';
    if (code === 1303) return 'concurrency_limited';
    if (code === 1304) return 'upstream_permission_denied';
    if (code === 5002) return 'upstream_timeout';
    if (code === 5001) return 'upstream_unavailable';
    if (code >= 5000) return 'upstream_error';
  }
  if (status === 401) return 'upstream_auth_error';
  if (status === 403) return 'upstream_permission_denied';
  if (status === 404) return 'not_found';
  if (status === 429) return 'upstream_rate_limited';
  if (isClientCausedStatus(status)) return 'upstream_invalid_request';
  if (status === 504) return 'upstream_timeout';
  if (status === 503) return 'upstream_unavailable';
  return 'upstream_error';
}

function prefixFor(code: ErrorCode, vendor: number | undefined): string {
  switch (code) {
    case 'upstream_auth_error':
      return 'Upstream rejected the gateway credentials (operator: check the channel access key and secret key)';
    case 'upstream_permission_denied':
      return vendor !== undefined && vendor >= 1100 && vendor <= 1102
        ? 'Upstream account unavailable (operator: check the account balance and resource packs)'
        : 'Upstream permission denied (operator: check model activation, key permission and IP whitelist)';
    case 'upstream_rate_limited':
      return 'Upstream rate limit exceeded';
    case 'concurrency_limited':
      return 'Upstream concurrency limit reached (too many running tasks)';
    case 'upstream_content_filtered':
      return 'Upstream content policy rejected the request';
    case 'not_found':
      return 'Upstream resource not found';
    case 'upstream_invalid_request':
      return 'Upstream rejected the request';
    default:
      return 'Upstream error';
  }
}

/** Build the client-facing error from a Kling error answer. */
export function klingError(status: number, body: unknown): GatewayError {
  let vendor: number | undefined;
  let message: string | undefined;
  let upstreamRequestId: string | undefined;
  if (isObject(body)) {
    if (typeof body.code === 'number') vendor = body.code;
    if (typeof body.message === 'string') message = body.message;
    if (typeof body.request_id === 'string') upstreamRequestId = body.request_id;
  }
  const code = klingErrorCode(status, vendor);
  // Credential problems: the vendor's own text is not useful to a client and may name the key.
  const detail = code === 'upstream_auth_error' ? '' : `: ${(message ?? `HTTP ${status}`).trim()}`;
  // 1103: no access to the API or model — an entitlement of this account. 1100–1102 (account unusable, in arrears,
  // resource packs used up) and a refused credential: the account takes no call now.
  const accountRefused = code === 'upstream_auth_error' || (vendor !== undefined && vendor >= 1100 && vendor <= 1102);
  return new GatewayError(code, `${prefixFor(code, vendor)}${detail}`, { ...(upstreamRequestId ? { upstreamRequestId } : {}), ...(vendor === 1103 ? { notEntitled: true } : {}), ...(accountRefused ? { accountRefused } : {}) });
}
