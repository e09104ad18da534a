import { GatewayError } from './gateway-error.ts';
import { redact } from './redact.ts';

/** Which error shape: the vendor envelope of /vidx/v1 (family A), or the OpenAI-style body of /v1 (family B). */
export type Family = 'vidx' | 'v1';

/** Family A paths are the vendor-style video API; everything else uses the OpenAI-style body. */
export function familyOf(url: string): Family {
  return url.startsWith('/vidx/') ? 'vidx' : 'v1';
}

export interface FamilyBErrorBody {
  error: { message: string; type: string; code: string; param?: string; request_id: string; upstream_request_id?: string };
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

export function renderFamilyA(err: GatewayError, requestId: string): FamilyAErrorBody {
  return { code: err.vendorCode, message: redact(err.message), request_id: requestId, data: null };
}

export function renderError(family: Family, err: GatewayError, requestId: string): FamilyAErrorBody | FamilyBErrorBody {
  return family === 'vidx' ? renderFamilyA(err, requestId) : renderFamilyB(err, requestId);
}
