// DashScope error bodies (native {code,message,request_id}, compatible-mode {error:{…}} and the messages-compatible
// {type:"error", error:{type,message}}) → GatewayError.
import { isContentFiltered, mentionsContentFilter } from '../../errors/content-filter.ts';
import { isClientCausedStatus } from '../../errors/client-caused.ts';
import { GatewayError, type UpstreamLimitKind } from '../../errors/gateway-error.ts';
import { inferParam, refusalMessage, upstreamWords } from '../../errors/upstream-words.ts';
import type { ErrorCode } from '../../errors/codes.ts';
import { isObject } from '../../json/json.ts';

/**
 * The catalogue code for an upstream error: its status, and its codes (`vendorCode`, `vendorType`) or message for a
 * content filter.
 */
export function upstreamErrorCode(
  status: number,
  vendorCode: string | undefined,
  vendorType?: string,
  message?: string,
): ErrorCode {
  if (isContentFiltered(vendorCode, vendorType) || mentionsContentFilter(message)) return 'upstream_content_filtered';
  if (status === 401) return 'upstream_auth_error';
  if (status === 403) return 'upstream_permission_denied';
  if (status === 429 || isThrottlingCode(vendorCode)) return 'upstream_rate_limited';
  if (status === 404 || isClientCausedStatus(status)) return 'upstream_invalid_request';
  if (status === 504) return 'upstream_timeout';
  // 503 says "temporarily unavailable, try again": clients get 503 upstream_unavailable for it; other 5xx stay 502.
  if (status === 503) return 'upstream_unavailable';
  return 'upstream_error';
}

/**
 * A native `Throttling…` code: a rate limit, whatever the status it came with (an error event inside a stream has
 * none).
 */
const isThrottlingCode = (vendorCode: string | undefined): boolean => vendorCode?.startsWith('Throttling') === true;

/**
 * Which of the account's limits a DashScope 429 names, by its code or, failing that, its message (native and
 * compatible-mode words, upstream-protocols.md §1): the tokens per minute ("Allocated quota exceeded", "You exceeded
 * your current quota"), the per-second burst protection ("Request rate increased too quickly"), else the requests
 * per minute ("Requests rate limit exceeded", "You exceeded your current requests list", or a 429 that says nothing).
 */
export function dashscopeLimitOf(vendorCode: string | undefined, message: string | undefined): UpstreamLimitKind {
  if (vendorCode === 'Throttling.AllocationQuota' || vendorCode === 'insufficient_quota') return 'tokens';
  if (vendorCode === 'Throttling.BurstRate') return 'burst';
  if (vendorCode === 'Throttling.RateQuota' || vendorCode === 'limit_requests') return 'requests';
  if (message !== undefined) {
    if (/allocated quota exceeded|exceeded your current quota/i.test(message)) return 'tokens';
    if (/increased too quickly/i.test(message)) return 'burst';
  }
  return 'requests';
}

/**
 * Upstream field names a DashScope message may name → the client's name for the same thing (family B). Only these are
 * ever named back: never a model, host or id from the upstream's message.
 */
const DASHSCOPE_FIELDS: Readonly<Record<string, string>> = {
  prompt: 'prompt',
  negative_prompt: 'negative_prompt',
  seed: 'seed',
  n: 'n',
  duration: 'seconds',
  resolution: 'resolution',
  messages: 'messages',
  max_tokens: 'max_tokens',
  temperature: 'temperature',
  top_p: 'top_p',
  tools: 'tools',
  dimensions: 'dimensions',
  encoding_format: 'encoding_format',
};

/** Our message for a DashScope refusal: by its code where that says more than the status. */
function messageFor(
  code: ErrorCode,
  vendorCode: string | undefined,
  status: number,
  param: string | undefined,
): string {
  if (vendorCode === 'Arrearage') return "Upstream account cannot take calls (operator: check the account's balance)";
  if (vendorCode === 'InvalidURL') return 'The upstream could not read a URL given in the request';
  if (vendorCode === 'BadRequest.EmptyInput') return 'The upstream found the request input empty';
  if (vendorCode === 'Model.AccessDenied' || vendorCode === 'AccessDenied.Unpurchased')
    return 'The upstream account has no access to this model (operator: check model activation and purchase)';
  if (status === 401) return 'Upstream rejected the gateway credentials (operator: check the channel key)';
  if (status === 403) return 'Upstream permission denied (operator: check model activation, key permission and quota)';
  return refusalMessage(code, param);
}

/**
 * Build the client-facing error from an upstream error answer: our catalogue code and our own words, keeping its
 * readable meaning. The upstream's code and message (they may name its models, hosts or our internal ids) are kept
 * for operators only (upstreamMessage). A rate limit says which limit refused (upstreamLimit) and carries the
 * answer's Retry-After, when it had one (`retryAfterMs`, see retry-after.ts).
 */
export function dashscopeError(status: number, body: unknown, retryAfterMs?: number): GatewayError {
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
  const arrears = vendorCode === 'Arrearage';
  const code = arrears ? 'upstream_permission_denied' : upstreamErrorCode(status, vendorCode, vendorType, message);
  const param = code === 'upstream_invalid_request' ? inferParam(message, DASHSCOPE_FIELDS) : undefined;
  // The account has no access to this model (not activated / not purchased): an entitlement of this account.
  const notEntitled =
    status === 403 && (vendorCode === 'Model.AccessDenied' || vendorCode === 'AccessDenied.Unpurchased');
  // The account is in arrears, or its key is refused: no call of any model goes through it now.
  const accountRefused = arrears || status === 401;
  const upstreamLimit = code === 'upstream_rate_limited' ? dashscopeLimitOf(vendorCode, message) : undefined;
  return new GatewayError(code, messageFor(code, vendorCode, status, param), {
    upstreamMessage: upstreamWords(status, vendorCode ?? vendorType, message),
    ...(param ? { param } : {}),
    ...(upstreamRequestId ? { upstreamRequestId } : {}),
    ...(notEntitled ? { notEntitled } : {}),
    ...(accountRefused ? { accountRefused } : {}),
    ...(upstreamLimit ? { upstreamLimit } : {}),
    ...(upstreamLimit && retryAfterMs !== undefined ? { retryAfterMs } : {}),
  });
}
