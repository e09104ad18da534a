import type { ServerResponse } from 'node:http';
import { requestId, sendJson } from '../http-util.ts';

/** DashScope native error body: {code, message, request_id}. */
export function nativeError(res: ServerResponse, status: number, code: string, message: string): void {
  sendJson(res, status, { code, message, request_id: requestId() });
}

/** DashScope compatible-mode (OpenAI-style) error body. */
export function compatError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  type = 'invalid_request_error',
): void {
  sendJson(res, status, { error: { message, type, param: null, code }, request_id: requestId() });
}

/** The canned upstream error for an injected status fault. */
export function statusFaultBody(status: number): { code: string; message: string; compatCode: string; type: string } {
  switch (status) {
    case 400:
      return {
        code: 'InvalidParameter',
        message: 'Invalid parameter.',
        compatCode: 'invalid_parameter_error',
        type: 'invalid_request_error',
      };
    case 401:
      return {
        code: 'InvalidApiKey',
        message: 'Invalid API-key provided.',
        compatCode: 'invalid_api_key',
        type: 'invalid_request_error',
      };
    case 403:
      return {
        code: 'AccessDenied',
        message: 'Access denied: the model is not activated for this account.',
        compatCode: 'access_denied',
        type: 'invalid_request_error',
      };
    case 429:
      return {
        code: 'Throttling.RateQuota',
        message: 'Requests rate limit exceeded, please try again later.',
        compatCode: 'limit_requests',
        type: 'requests',
      };
    default:
      return {
        code: 'InternalError',
        message: 'An internal error has occured, please try again later.',
        compatCode: 'internal_error',
        type: 'internal_error',
      };
  }
}
