// DashScope error bodies (native {code,message,request_id}, compatible-mode {error:{…}} and the messages-compatible
// {type:"error", error:{type,message}}) → GatewayError.
import { isContentFiltered, mentionsContentFilter } from '../../errors/content-filter.ts';
import { isClientCausedStatus } from '../../errors/client-caused.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { ErrorCode } from '../../errors/codes.ts';
import { isObject } from '../../contracts/fields.ts';

/** The catalogue code for an upstream error: its status, and its codes (`vendorCode`, `vendorType`) or message for a content filter. */
export function upstreamErrorCode(status: number, vendorCode: string | undefined, vendorType?: string, message?: string): ErrorCode {
  if (isContentFiltered(vendorCode, vendorType) || mentionsContentFilter(message)) return 'upstream_content_filtered';
  if (status === 401) return 'upstream_auth_error';
  if (status === 403) return 'upstream_permission_denied';
  if (status === 429) return 'upstream_rate_limited';
  if (status === 404 || isClientCausedStatus(status)) return 'upstream_invalid_request';
  if (status === 504) return 'upstream_timeout';
  // 503 says "temporarily unavailable, try again": clients get 503 upstream_unavailable for it; other 5xx stay 502.
  if (status === 503) return 'upstream_unavailable';
  return 'upstream_error';
}

/** Build the client-facing error from an upstream error answer, keeping its readable meaning. */
export function dashscopeError(status: number, body: unknown): GatewayError {
  let vendorCode: string | undefined;
  let vendorType: string | undefined;
  let message: string | undefined;
  let upstreamRequestId: string | undefined;
  if (isObject(body)) {
    if (typeof body.request_id === 'string') upstreamRequestId = body.request_id;
    if (isObject(body.error)) {
      if (typeof body.error.code === 'string') vendorCode = body.error.code;
      if (typeof body.error.type === 'string') vendorType = body.error.type;
      if (typeof body.error.message === 'string') message = body.error.message;
    } else {
      if (typeof body.code === 'string') vendorCode = body.code;
      if (typeof body.message === 'string') message = body.message;
    }
  }
  const code = upstreamErrorCode(status, vendorCode, vendorType, message);
  const prefix =
    code === 'upstream_content_filtered'
      ? 'Upstream content policy rejected the request'
      : status === 401
      ? 'Upstream rejected the gateway credentials (operator: check the channel key)'
      : status === 403
        ? 'Upstream permission denied (operator: check model activation, key permission and quota)'
        : status === 429
          ? 'Upstream rate limit or quota exceeded'
          : 'Upstream error';
  const text = `${prefix}: ${vendorCode ? `${vendorCode}: ` : ''}${(message ?? `HTTP ${status}`).trim()}`;
  // The account has no access to this model (not activated / not purchased): an entitlement of this account.
  const notEntitled = status === 403 && (vendorCode === 'Model.AccessDenied' || vendorCode === 'AccessDenied.Unpurchased');
  // The account is in arrears, or its key is refused: no call of any model goes through it now.
  const accountRefused = vendorCode === 'Arrearage' || status === 401;
  if (vendorCode === 'Arrearage') {
    return new GatewayError('upstream_permission_denied', `Upstream account cannot take calls (operator: check the account's balance): ${vendorCode}: ${(message ?? `HTTP ${status}`).trim()}`, { ...(upstreamRequestId ? { upstreamRequestId } : {}), accountRefused });
  }
  return new GatewayError(code, text, { ...(upstreamRequestId ? { upstreamRequestId } : {}), ...(notEntitled ? { notEntitled } : {}), ...(accountRefused ? { accountRefused } : {}) });
}
