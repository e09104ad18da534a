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
    for (const body of [
      { code: vendorCode, message: 'readable reason', request_id: 'up-1' },
      { error: { code: vendorCode, message: 'readable reason' }, request_id: 'up-1' },
    ]) {
      const e = dashscopeError(status, body);
      expect([e.code, e.status]).toEqual([want, httpStatus]);
      expect(e.upstreamRequestId).toBe('up-1');
      // Our words to the client; the upstream's code and message for operators only.
      expect(e.message).not.toContain('readable reason');
      expect(e.message).not.toContain(vendorCode);
      expect(e.upstreamMessage).toBe(`HTTP ${status} ${vendorCode}: readable reason`);
    }
  });

  it("names the refused parameter by the client's name when the message names one; never the upstream model or host", () => {
    const e = dashscopeError(400, {
      code: 'InvalidParameter',
      message: 'Model wan2.7-t2v: duration must be in [2, 15] (see https://dashscope.aliyuncs.com/x)',
      request_id: 'r',
    });
    expect([e.code, e.param, e.message]).toEqual([
      'upstream_invalid_request',
      'seconds',
      'The upstream refused the value of seconds',
    ]);
    const bare = dashscopeError(400, {
      code: 'InvalidParameter',
      message: 'qwen3.7-plus does not support this',
      request_id: 'r',
    });
    expect([bare.param, bare.message]).toEqual([undefined, 'The upstream refused a parameter of the request']);
    expect(
      dashscopeError(400, {
        code: 'Arrearage',
        message: 'Access denied, please make sure your account is in good standing.',
      }),
    ).toMatchObject({
      code: 'upstream_permission_denied',
      accountRefused: true,
      message: "Upstream account cannot take calls (operator: check the account's balance)",
    });
  });
});
