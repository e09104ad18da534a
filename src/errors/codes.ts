// The one error-code catalogue. Every rejection the gateway makes uses a code from here,
// so HTTP status, family-B `type` and family-A numeric code never drift apart.
export interface CodeSpec {
  status: number;
  type: string;
  /** Vendor (family A) numeric code, following the video vendor's scheme. */
  vendorCode: number;
}

export const ERROR_CODES = {
  invalid_json: { status: 400, type: 'invalid_request_error', vendorCode: 1200 },
  invalid_request: { status: 400, type: 'invalid_request_error', vendorCode: 1201 },
  invalid_parameter: { status: 400, type: 'invalid_request_error', vendorCode: 1201 },
  missing_parameter: { status: 400, type: 'invalid_request_error', vendorCode: 1201 },
  unsupported_content_type: { status: 415, type: 'invalid_request_error', vendorCode: 1200 },
  invalid_duration: { status: 400, type: 'invalid_request_error', vendorCode: 1201 },
  invalid_resolution: { status: 400, type: 'invalid_request_error', vendorCode: 1201 },
  invalid_seed: { status: 400, type: 'invalid_request_error', vendorCode: 1201 },
  seed_not_supported: { status: 400, type: 'invalid_request_error', vendorCode: 1201 },
  invalid_reference: { status: 400, type: 'invalid_request_error', vendorCode: 1201 },
  invalid_size: { status: 400, type: 'invalid_request_error', vendorCode: 1201 },
  invalid_n: { status: 400, type: 'invalid_request_error', vendorCode: 1201 },
  too_many_images: { status: 400, type: 'invalid_request_error', vendorCode: 1201 },
  model_not_supported: { status: 400, type: 'invalid_request_error', vendorCode: 1201 },
  image_edit_no_output: { status: 422, type: 'invalid_request_error', vendorCode: 1201 },
  missing_token: { status: 401, type: 'authentication_error', vendorCode: 1001 },
  invalid_token: { status: 401, type: 'authentication_error', vendorCode: 1002 },
  token_expired: { status: 401, type: 'authentication_error', vendorCode: 1004 },
  token_revoked: { status: 401, type: 'authentication_error', vendorCode: 1002 },
  permission_denied: { status: 403, type: 'permission_error', vendorCode: 1103 },
  insufficient_quota: { status: 429, type: 'insufficient_quota', vendorCode: 1102 },
  model_not_found: { status: 404, type: 'invalid_request_error', vendorCode: 1203 },
  not_found: { status: 404, type: 'invalid_request_error', vendorCode: 1203 },
  task_not_found: { status: 404, type: 'invalid_request_error', vendorCode: 1203 },
  session_not_found: { status: 404, type: 'invalid_request_error', vendorCode: 1203 },
  session_expired: { status: 410, type: 'invalid_request_error', vendorCode: 1201 },
  method_not_allowed: { status: 405, type: 'invalid_request_error', vendorCode: 1202 },
  conflict: { status: 409, type: 'invalid_request_error', vendorCode: 1201 },
  /** A redemption code already redeemed (by another token, or another request of this one that was refused). */
  credit_code_used: { status: 409, type: 'invalid_request_error', vendorCode: 1201 },
  /** A redemption code past its batch's expiry, or of a revoked batch. */
  credit_code_expired: { status: 410, type: 'invalid_request_error', vendorCode: 1201 },
  video_not_ready: { status: 409, type: 'invalid_request_error', vendorCode: 1201 },
  result_expired: { status: 410, type: 'invalid_request_error', vendorCode: 1203 },
  payload_too_large: { status: 413, type: 'invalid_request_error', vendorCode: 1200 },
  rate_limit_exceeded: { status: 429, type: 'rate_limit_error', vendorCode: 1302 },
  concurrency_limited: { status: 429, type: 'rate_limit_error', vendorCode: 1303 },
  /** Too many of the token's (or its account's) tasks already wait in the gateway for an upstream slot. */
  task_queue_full: { status: 429, type: 'rate_limit_error', vendorCode: 1303 },
  upstream_auth_error: { status: 502, type: 'upstream_error', vendorCode: 5001 },
  upstream_permission_denied: { status: 403, type: 'permission_error', vendorCode: 1103 },
  upstream_rate_limited: { status: 429, type: 'rate_limit_error', vendorCode: 1302 },
  /** The upstream account x model had no room within the queue wait: the gateway's own answer (capacity/). */
  upstream_capacity: { status: 429, type: 'rate_limit_error', vendorCode: 1302 },
  upstream_invalid_request: { status: 400, type: 'invalid_request_error', vendorCode: 1201 },
  upstream_content_filtered: { status: 400, type: 'invalid_request_error', vendorCode: 1301 },
  upstream_error: { status: 502, type: 'upstream_error', vendorCode: 5001 },
  upstream_timeout: { status: 504, type: 'upstream_error', vendorCode: 5002 },
  upstream_unavailable: { status: 503, type: 'upstream_error', vendorCode: 5001 },
  /** The connection to the upstream could not be made: the request certainly was not sent. */
  upstream_unreachable: { status: 502, type: 'upstream_error', vendorCode: 5001 },
  no_channel: { status: 503, type: 'upstream_error', vendorCode: 5001 },
  download_failed: { status: 502, type: 'upstream_error', vendorCode: 5001 },
  download_refused: { status: 502, type: 'upstream_error', vendorCode: 5001 },
  internal_error: { status: 500, type: 'server_error', vendorCode: 5000 },
  service_unavailable: { status: 503, type: 'server_error', vendorCode: 5001 },
} as const satisfies Record<string, CodeSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function codeSpec(code: ErrorCode): CodeSpec {
  return ERROR_CODES[code];
}
