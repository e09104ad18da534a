// Time bounds in query strings: milliseconds or an ISO 8601 date/date-time, a day that exists, a time a Date can hold;
// anything else a 400 naming the parameter — never a silently different instant.
import { describe, expect, it } from 'vitest';
import { qTime } from '../../src/contracts/query.ts';
import { GatewayError } from '../../src/errors/gateway-error.ts';

const refused = (v: string) => {
  try {
    qTime({ since: v }, 'since');
  } catch (e) {
    return e instanceof GatewayError && e.code === 'invalid_parameter' && e.param === 'since';
  }
  return false;
};

describe('qTime', () => {
  it('reads milliseconds, dates (UTC midnight) and date-times (UTC unless they say)', () => {
    expect(qTime({ since: '1767225600000' }, 'since')).toBe(1767225600000);
    expect(qTime({ since: '2026-01-01' }, 'since')).toBe(Date.UTC(2026, 0, 1));
    expect(qTime({ since: '2028-02-29T12:00:00' }, 'since')).toBe(Date.UTC(2028, 1, 29, 12));
    expect(qTime({ since: '2026-03-01T00:00:00+01:00' }, 'since')).toBe(Date.UTC(2026, 1, 28, 23));
    expect(qTime({}, 'since')).toBeUndefined();
  });

  it('refuses a day the calendar has not, and a number past what a Date can hold', () => {
    for (const v of [
      '2026-02-30',
      '2026-02-29',
      '2026-13-01',
      '2026-04-31T10:00:00Z',
      '2026-00-10',
      '9999999999999999',
      '8640000000000001',
      'yesterday',
    ])
      expect(refused(v), v).toBe(true);
    expect(qTime({ since: '8640000000000000' }, 'since')).toBe(8.64e15);
  });
});
