// Unauthenticated events are counted per IPv4 address and per IPv6 /64: one host holds a whole /64, so wrong admin
// keys from its many addresses are one window, and it locks only itself.
import { describe, expect, it } from 'vitest';
import { checkAdminKey } from '../../src/core/console/sessions.ts';
import { MAX_SIGNIN_FAILURES } from '../../src/core/sign-in-lockout.ts';
import { addressBucket } from '../../src/limits/address-bucket.ts';
import { MemoryAddressWindows, MemoryCounters, RateLimiter } from '../../src/limits/rate-limiter.ts';

describe('addressBucket', () => {
  it('IPv6 by its /64 whatever the spelling; IPv4 and IPv4-mapped IPv6 as the address', () => {
    expect(addressBucket('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:DB8:0001:0002::ffff')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressBucket('::1')).toBe('0:0:0:0::/64');
    expect(addressBucket('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressBucket('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(addressBucket('192.0.2.7')).toBe('192.0.2.7');
    expect(addressBucket('not an address')).toBe('not an address');
  });
});

describe('wrong admin keys from one IPv6 /64', () => {
  it('lock the /64 (every address in it), not the addresses next to it', async () => {
    const deps = {
      adminKey: 'the-right-admin-key-0123456789abcdef',
      limiter: new RateLimiter(new MemoryCounters(), 60_000, () => {}, new MemoryAddressWindows(1000)),
      isClientToken: async () => false,
      trusted: () => false,
    };
    // A different address of the /64 for each guess.
    for (let i = 1; i <= MAX_SIGNIN_FAILURES; i++) {
      await expect(checkAdminKey(deps, `wrong-${i}`, `2001:db8:0:1::${i.toString(16)}`)).rejects.toMatchObject({
        code: 'permission_denied',
      });
    }
    await expect(checkAdminKey(deps, 'wrong-next', '2001:db8:0:1:ffff::9')).rejects.toMatchObject({
      code: 'rate_limit_exceeded',
    });
    await expect(checkAdminKey(deps, deps.adminKey, '2001:db8:0:1::abcd')).rejects.toMatchObject({
      code: 'rate_limit_exceeded',
    });
    // The next /64 is another host.
    await expect(checkAdminKey(deps, deps.adminKey, '2001:db8:0:2::1')).resolves.toBeUndefined();
  });
});
