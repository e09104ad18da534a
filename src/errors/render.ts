import type { GatewayError } from './gateway-error.ts';
import { redact } from './redact.ts';

/**
 * Which error shape: the vendor envelope of /vidx/v1 (family A), the OpenAI-style body of /v1 (family B), or on
 * /v1/messages (and /v1/messages/count_tokens) the messages API's own shape with the family B fields inside.
 */
export type Family = 'vidx' | 'v1' | 'messages';

const MESSAGES = '/v1/messages';

/**
 * Family A paths are the vendor-style video API; the messages routes answer as the messages API; the rest OpenAI-style.
 */
export function familyOf(url: string): Family {
  if (url.startsWith('/vidx/')) return 'vidx';
  if (url.startsWith(MESSAGES)) {
    const next = url.charCodeAt(MESSAGES.length);
    // Exactly /v1/messages, or below it (/, ?): not /v1/messagesfoo.
    if (Number.isNaN(next) || next === 47 /* / */ || next === 63 /* ? */) return 'messages';
  }
  return 'v1';
}

export interface FamilyBErrorBody {
  error: {
    message: string;
    type: string;
    code: string;
    param?: string;
    request_id: string;
    upstream_request_id?: string;
  };
}

export interface FamilyAErrorBody {
  code: number;
  message: string;
  request_id: string;
  data: null;
}

export function renderFamilyB(err: GatewayError, requestId: string): FamilyBErrorBody {
  const message = `${redact(err.message)} (request id: ${requestId})`;
  const body: FamilyBErrorBody = { error: { message, type: err.type, code: err.code, request_id: requestId } };
  if (err.param !== undefined) body.error.param = err.param;
  if (err.upstreamRequestId) body.error.upstream_request_id = redact(err.upstreamRequestId);
  return body;
}

/** The messages API's error shape: `{type:"error", error:{type, message, …}, request_id}`. */
export interface MessagesErrorBody {
  type: 'error';
  error: FamilyBErrorBody['error'];
  request_id: string;
}

/**
 * The messages API's error type for an error, by HTTP status as that API assigns them (its SDK picks the error
 * class by status too): 400 invalid_request_error, 401 authentication_error, 403 permission_error, 404
 * not_found_error, 413 request_too_large, 429 rate_limit_error, 503 overloaded_error, 504 timeout_error, other
 * 5xx api_error. Other 4xx (405, 409, 410, 415, 422) are invalid requests.
 */
export function messagesErrorType(status: number): string {
  switch (status) {
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 503:
      return 'overloaded_error';
    case 504:
      return 'timeout_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

/**
 * The messages error body: the family B fields (code, request id, param, upstream request id) under the messages type.
 */
export function renderMessages(err: GatewayError, requestId: string): MessagesErrorBody {
  const { type: _familyB, ...rest } = renderFamilyB(err, requestId).error;
  return { type: 'error', error: { type: messagesErrorType(err.status), ...rest }, request_id: requestId };
}

export function renderFamilyA(err: GatewayError, requestId: string): FamilyAErrorBody {
  return { code: err.vendorCode, message: redact(err.message), request_id: requestId, data: null };
}

export function renderError(
  family: Family,
  err: GatewayError,
  requestId: string,
): FamilyAErrorBody | FamilyBErrorBody | MessagesErrorBody {
  if (family === 'vidx') return renderFamilyA(err, requestId);
  return family === 'messages' ? renderMessages(err, requestId) : renderFamilyB(err, requestId);
}
