// The trusted networks of TOLLWAY_TRUST_PROXY as the admin-key limiter reads them: addresses, CIDRs, range names and
// IPv4-mapped IPv6 addresses; a hop count or no setting trusts no network.
import { describe, expect, it } from 'vitest';
import { inTrustedNetwork } from '../../src/net/trusted-network.ts';

describe('inTrustedNetwork', () => {
  it('matches addresses, CIDRs and range names, and nothing else', () => {
    const trusted = inTrustedNetwork({ addresses: ['10.1.0.0/16', '203.0.113.7', 'loopback', '2001:db8::/32'] });
    expect(trusted('10.1.200.3')).toBe(true);
    expect(trusted('10.2.0.1')).toBe(false);
    expect(trusted('203.0.113.7')).toBe(true);
    expect(trusted('203.0.113.8')).toBe(false);
    expect(trusted('127.0.0.1')).toBe(true);
    expect(trusted('::1')).toBe(true);
    expect(trusted('::ffff:10.1.0.9')).toBe(true);
    expect(trusted('2001:db8:1::5')).toBe(true);
    expect(trusted('2001:db9::5')).toBe(false);
    expect(trusted('not-an-address')).toBe(false);
  });

  it('trusts no network with a hop count or without the setting', () => {
    expect(inTrustedNetwork({ hops: 1 })('127.0.0.1')).toBe(false);
    expect(inTrustedNetwork(null)('127.0.0.1')).toBe(false);
  });
});
