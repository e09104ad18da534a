// Budget periods: calendar day, ISO week (from Monday) and month, in UTC or an IANA time zone, across a DST change.
import { describe, expect, it } from 'vitest';
import { isTimeZone, periodBounds } from '../../src/metering/periods.ts';

const iso = (b: { start: number; end: number }) => [new Date(b.start).toISOString(), new Date(b.end).toISOString()];

describe('periodBounds', () => {
  it('UTC: day, week from Monday, month (December rolls into January)', () => {
    const at = Date.UTC(2026, 11, 31, 23, 59, 59); // a Thursday
    expect(iso(periodBounds('day', at, null))).toEqual(['2026-12-31T00:00:00.000Z', '2027-01-01T00:00:00.000Z']);
    expect(iso(periodBounds('week', at, null))).toEqual(['2026-12-28T00:00:00.000Z', '2027-01-04T00:00:00.000Z']);
    expect(iso(periodBounds('month', at, null))).toEqual(['2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z']);
  });

  it('a time zone: the period starts at local midnight, and a DST change makes a 23-hour day', () => {
    // 2026-01-31T15:30Z is 2026-02-01 00:30 in Tokyo (UTC+9).
    expect(iso(periodBounds('month', Date.UTC(2026, 0, 31, 15, 30), 'Asia/Tokyo'))).toEqual([
      '2026-01-31T15:00:00.000Z',
      '2026-02-28T15:00:00.000Z',
    ]);
    // Europe/Paris moves to summer time on 2026-03-29: that day is 23 hours long.
    const d = periodBounds('day', Date.UTC(2026, 2, 29, 12), 'Europe/Paris');
    expect(iso(d)).toEqual(['2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z']);
    // A Sunday evening in New York is still in the week that began on Monday the 23rd.
    expect(iso(periodBounds('week', Date.UTC(2026, 2, 30, 2), 'America/New_York'))).toEqual([
      '2026-03-23T04:00:00.000Z',
      '2026-03-30T04:00:00.000Z',
    ]);
  });

  it('knows IANA names only', () => {
    expect(isTimeZone('Europe/Paris')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });
});
