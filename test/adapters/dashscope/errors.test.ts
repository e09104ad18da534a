import { describe, expect, it } from 'vitest';
import { dashscopeError } from '../../../src/adapters/dashscope/errors.ts';

describe('DashScope error answers → catalogue codes', () => {
  it.each([
    [400, 'InvalidParameter', 'upstream_invalid_request', 400],
    [400, 'DataInspectionFailed', 'upstream_content_filtered', 400],
    [401, 'InvalidApiKey', 'upstream_auth_error', 502],
    [403, 'AccessDenied', 'upstream_permission_denied', 403],
    [429, 'Throttling', 'upstream_rate_limited', 429],
    [500, 'InternalError', 'upstream_error', 502],
    [502, 'BadGateway', 'upstream_error', 502],
    [503, 'ServiceUnavailable', 'upstream_unavailable', 503],
    [504, 'RequestTimeOut', 'upstream_timeout', 504],
  ] as const)('HTTP %i %s → %s (%i)', (status, vendorCode, want, httpStatus) => {
    // both body shapes: native {code, message, request_id} and compatible-mode {error: {code, message}}
    for (const body of [{ code: vendorCode, message: 'readable reason', request_id: 'up-1' }, { error: { code: vendorCode, message: 'readable reason' }, request_id: 'up-1' }]) {
      const e = dashscopeError(status, body);
      expect([e.code, e.status]).toEqual([want, httpStatus]);
      expect(e.upstreamRequestId).toBe('up-1');
      expect(e.message).toContain('readable reason');
    }
  });
});
