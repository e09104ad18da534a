// Kling envelope errors ({code, message, request_id}, non-zero code) → GatewayError, keeping the
// vendor's meaning in our own words. Auth and account codes are the operator's problem, said so without details.
import { isObject } from '../../json/json.ts';
import { isContentFilterCode } from '../../errors/content-filter.ts';
import type { ErrorCode } from '../../errors/codes.ts';
import { isClientCausedStatus } from '../../errors/client-caused.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { inferParam, refusalMessage, upstreamWords } from '../../errors/upstream-words.ts';

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

/**
 * Family A fields as the upstream names them, which are the client's names too (the body is the vendor's). Only these
 * are ever named back to the client: never a model, host or id from the upstream's message.
 */
const KLING_FIELDS: Readonly<Record<string, string>> = Object.fromEntries(
  [
    'model_name',
    'prompt',
    'negative_prompt',
    'cfg_scale',
    'sound',
    'mode',
    'camera_control',
    'aspect_ratio',
    'duration',
    'watermark_info',
    'image_list',
    'video_list',
    'element_list',
    'multi_shot',
    'shot_type',
    'multi_prompt',
    'session_id',
    'edit_mode',
    'frame_index',
    'points',
    'video_id',
    'video_url',
  ].map((f) => [f, f]),
);

/** Our message for a Kling error code (the account's state said apart from a permission). */
function messageFor(code: ErrorCode, vendor: number | undefined, param: string | undefined): string {
  if (vendor !== undefined && vendor >= 1100 && vendor <= 1102)
    return 'Upstream account unavailable (operator: check the account balance and resource packs)';
  if (vendor === 1103)
    return 'The upstream account has no access to this API or model (operator: check model activation and resource packs)';
  if (vendor === 1304) return 'Upstream refused the gateway address (operator: check the IP whitelist)';
  return refusalMessage(code, param);
}

/**
 * Build the client-facing error from a Kling error answer: our catalogue code and our own words, the field named when
 * the upstream's message names one. The upstream's message (it may name its own models, hosts or our internal ids)
 * is kept for operators only (upstreamMessage). Its rate limit (1302, or a 429 without a known code) is the
 * account's request rate (upstreamLimit 'requests'), with the answer's Retry-After when it had one.
 */
export function klingError(status: number, body: unknown, retryAfterMs?: number): GatewayError {
  let vendor: number | undefined;
  let message: string | undefined;
  let upstreamRequestId: string | undefined;
  if (isObject(body)) {
    if (typeof body.code === 'number') vendor = body.code;
    if (typeof body.message === 'string') message = body.message;
    if (typeof body.request_id === 'string') upstreamRequestId = body.request_id;
  }
  const code = klingErrorCode(status, vendor);
  const rateLimited = code === 'upstream_rate_limited';
  const param = code === 'upstream_invalid_request' ? inferParam(message, KLING_FIELDS) : undefined;
  // 1103: no access to the API or model — an entitlement of this account. 1100–1102 (account unusable, in arrears,
  // resource packs used up) and a refused credential: the account takes no call now.
  const accountRefused = code === 'upstream_auth_error' || (vendor !== undefined && vendor >= 1100 && vendor <= 1102);
  return new GatewayError(code, messageFor(code, vendor, param), {
    upstreamMessage: upstreamWords(status, vendor, message),
    ...(param ? { param } : {}),
    ...(upstreamRequestId ? { upstreamRequestId } : {}),
    ...(vendor === 1103 ? { notEntitled: true } : {}),
    ...(accountRefused ? { accountRefused } : {}),
    ...(rateLimited ? { upstreamLimit: 'requests' as const } : {}),
    ...(rateLimited && retryAfterMs !== undefined ? { retryAfterMs } : {}),
  });
}
