import { describe, expect, it } from 'vitest';
import { GatewayError, withUpstreamRequestId } from '../../src/errors/gateway-error.ts';

describe('GatewayError', () => {
  it('says which upstream limit refused a call and its Retry-After; none by default', () => {
    expect(new GatewayError('upstream_error', 'x')).toMatchObject({ upstreamLimit: null, retryAfterMs: null });
    const e = new GatewayError('upstream_rate_limited', 'x', {
      upstreamLimit: 'tokens',
      retryAfterMs: 2500,
      upstreamMessage: 'HTTP 429',
    });
    expect(e).toMatchObject({ upstreamLimit: 'tokens', retryAfterMs: 2500 });
  });

  it('keeps them when the upstream request id is added from a header', () => {
    const e = new GatewayError('upstream_rate_limited', 'x', { upstreamLimit: 'burst', retryAfterMs: 1000 });
    expect(withUpstreamRequestId(e, 'hdr-1')).toMatchObject({
      upstreamRequestId: 'hdr-1',
      upstreamLimit: 'burst',
      retryAfterMs: 1000,
    });
  });
});
