// Budget periods: calendar day, ISO week (from Monday) and month, in UTC or an IANA time zone, across a DST change.
import { describe, expect, it } from 'vitest';
import { dayRuns, isTimeZone, localDay, periodBounds, periodDays } from '../../src/metering/periods.ts';

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

describe('dayRuns: the local day of every instant, as the store groups bills', () => {
  const dayOf = (t: number, runs: ReturnType<typeof dayRuns>) => {
    const r = runs.find((x) => x.since <= t && t < x.until)!;
    return r.offset === null ? r.first : Math.floor((t + r.offset) / 86_400_000);
  };

  it.each(['America/Los_Angeles', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Europe/Paris', null])(
    '%s: runs tile the year and give each instant its local day',
    (tz) => {
      const since = Date.UTC(2026, 0, 1, 5, 17);
      const until = Date.UTC(2027, 0, 3);
      const runs = dayRuns(since, until, tz);
      expect(runs[0]!.since).toBe(since);
      expect(runs.at(-1)!.until).toBe(until);
      for (let i = 1; i < runs.length; i++) expect(runs[i]!.since).toBe(runs[i - 1]!.until);
      // Every 97 minutes and 13 seconds (a different time of day each day), and either side of each run's edges.
      const probes = runs.flatMap((r) => [r.since, r.until - 1]);
      for (let t = since; t < until; t += 5_833_000) probes.push(t);
      for (const t of probes) expect(dayOf(t, runs)).toBe(localDay(t, tz));
    },
  );

  it('periodDays: one calendar rule for budgets and bills (weeks from Monday, months of their length)', () => {
    const day = (iso: string) => Date.parse(iso) / 86_400_000;
    expect(periodDays('week', day('2026-03-08'))).toEqual({ start: day('2026-03-02'), end: day('2026-03-09') });
    expect(periodDays('month', day('2028-02-29'))).toEqual({ start: day('2028-02-01'), end: day('2028-03-01') });
    expect(periodDays('day', day('2026-12-31'))).toEqual({ start: day('2026-12-31'), end: day('2027-01-01') });
  });
});
