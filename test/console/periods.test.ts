// The console's spend chart periods: the last UTC days or months up to now, oldest first, across month and year ends.
import { expect, it } from 'vitest';
import { lastPeriods } from '../../console/src/periods.ts';

it('names the last days and months in UTC with their start, oldest first, across a year end', () => {
  const now = Date.UTC(2026, 0, 2, 23, 30);
  expect(lastPeriods('day', 3, now)).toEqual([
    ['2025-12-31', Date.UTC(2025, 11, 31)],
    ['2026-01-01', Date.UTC(2026, 0, 1)],
    ['2026-01-02', Date.UTC(2026, 0, 2)],
  ]);
  expect(lastPeriods('month', 3, Date.UTC(2026, 1, 28, 12)).map(([k]) => k)).toEqual(['2025-12', '2026-01', '2026-02']);
  // 31 March back one month is February's start, not a day of March.
  expect(lastPeriods('month', 2, Date.UTC(2026, 2, 31))).toEqual([
    ['2026-02', Date.UTC(2026, 1, 1)],
    ['2026-03', Date.UTC(2026, 2, 1)],
  ]);
});
