// The two error shapes as the tests check them. Family B (/v1, /admin, …): `{error:{code, type, message,
// request_id, …}}`, the request id in the body equal to the `x-gateway-request-id` header and at the end of the
// message. Family A (/vidx/v1): the vendor envelope `{code, message, request_id, data}`, `data: null` on errors.
import { expect } from 'vitest';
import { DEFAULT_SIM_KEYS, type Simulator } from '../../simulator/index.ts';
import type { Harness } from './harness.ts';

/** A family B error body. */
export type BErr = {
  error: {
    code: string;
    type: string;
    message: string;
    request_id: string;
    param?: string;
    upstream_request_id?: string;
  };
};

/** The family A envelope: `code` 0 and the answer in `data` on success, a vendor code and `data: null` on errors. */
export interface VidxEnvelope<T = Record<string, unknown>> {
  code: number;
  message: string;
  request_id: string;
  data: T;
}

/** A family A error body. */
export type AErr = VidxEnvelope<null>;

export const RID = /^req_[0-9a-f]{32}$/;

/** The messages API's error types by status, as its SDK expects them. */
export const MESSAGES_ERROR_TYPE: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  405: 'invalid_request_error',
  413: 'request_too_large',
  415: 'invalid_request_error',
  429: 'rate_limit_error',
  500: 'api_error',
  502: 'api_error',
  503: 'overloaded_error',
  504: 'timeout_error',
};

/**
 * A family B error answer: status, JSON, the code, the request id in its three headers, body and message. The
 * shape follows the route: exactly `{error}`, or on /v1/messages (and below) the messages API's
 * `{type:"error", error:{type, …family B fields}, request_id}` with the messages type for the status.
 */
export async function expectB(r: Response, status: number, code: string): Promise<BErr> {
  expect(r.status).toBe(status);
  const rid = r.headers.get('x-gateway-request-id');
  expect(rid).toMatch(RID);
  expect(r.headers.get('x-request-id')).toBe(rid);
  expect(r.headers.get('request-id')).toBe(rid);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await r.json()) as BErr & { type?: string; request_id?: string };
  if (r.url !== '' && /^\/v1\/messages(\/|$)/.test(new URL(r.url).pathname)) {
    expect(Object.keys(body)).toEqual(['type', 'error', 'request_id']);
    expect(body.type).toBe('error');
    expect(body.request_id).toBe(rid);
    expect(body.error.type).toBe(MESSAGES_ERROR_TYPE[status]);
  } else expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  expect(body.error.request_id).toBe(rid);
  expect(body.error.message.endsWith(`(request id: ${rid})`)).toBe(true);
  expect(typeof body.error.type).toBe('string');
  return body;
}

/**
 * A family A error answer: status, exactly `{code, data, message, request_id}`, the vendor code, `data: null`, the
 * request id.
 */
export async function expectA(r: Response, status: number, vendorCode: number): Promise<AErr> {
  expect(r.status).toBe(status);
  const rid = r.headers.get('x-gateway-request-id');
  expect(rid).toMatch(RID);
  const body = (await r.json()) as AErr;
  expect(Object.keys(body).sort()).toEqual(['code', 'data', 'message', 'request_id']);
  expect(body.code).toBe(vendorCode);
  expect(body.data).toBeNull();
  expect(body.request_id).toBe(rid);
  return body;
}

/** Family B error body already read as text: `{error:{code, type, message (with the request id), request_id}}`. */
export function expectFamilyBError(text: string, rid: string | null, code: string): void {
  const body = JSON.parse(text) as BErr;
  expect(body.error.code).toBe(code);
  expect(typeof body.error.type).toBe('string');
  expect(body.error.request_id).toBe(rid);
  expect(body.error.message).toContain(String(rid));
}

/** Family A error envelope already read as text: `{code (vendor, non-zero), message, request_id, data: null}`. */
export function expectFamilyAError(text: string, rid: string | null, vendorCode: number): void {
  const body = JSON.parse(text) as AErr;
  expect(body.code).toBe(vendorCode);
  expect(body.request_id).toBe(rid);
  expect(body.data).toBeNull();
}

/** Text that must never reach a client: upstream credentials, upstream addresses, stack traces, JWTs. */
export function expectNoLeak(h: Harness, text: string, extraSims: Simulator[] = []): void {
  for (const s of [h.sim, ...extraSims]) expect(text).not.toContain(new URL(s.url).host);
  expect(text).not.toContain(DEFAULT_SIM_KEYS.dashscopeApiKey);
  expect(text).not.toContain(DEFAULT_SIM_KEYS.klingSecretKey);
  expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{5,}\./);
  expect(text).not.toMatch(/at [\w.<>]+ \(.*:\d+:\d+\)/);
  expect(text).not.toMatch(/aliyuncs\.com|klingai\.com/);
}
