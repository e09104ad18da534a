// Times on the command line: ISO 8601 (UTC unless it says), a span before or after now, or milliseconds.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/client.ts';
import { parseTime } from '../../src/cli/times.ts';

const NOW = Date.UTC(2026, 5, 15, 12);

describe('parseTime', () => {
  it('reads a span as before now for a bound and after now for an expiry', () => {
    expect(parseTime('--since', '7d', 'past', NOW)).toBe(NOW - 7 * 86_400_000);
    expect(parseTime('--since', '90m', 'past', NOW)).toBe(NOW - 90 * 60_000);
    expect(parseTime('--expires-at', '2w', 'future', NOW)).toBe(NOW + 14 * 86_400_000);
  });

  it('reads ISO 8601 dates and date-times (UTC unless they say), and milliseconds as they are', () => {
    expect(parseTime('--since', '2026-01-31', 'past', NOW)).toBe(Date.UTC(2026, 0, 31));
    expect(parseTime('--since', '2026-01-31T12:30:00', 'past', NOW)).toBe(Date.UTC(2026, 0, 31, 12, 30));
    expect(parseTime('--since', '2026-01-31T12:30:00+02:00', 'past', NOW)).toBe(Date.UTC(2026, 0, 31, 10, 30));
    expect(parseTime('--from', '1767225600000', 'past', NOW)).toBe(1_767_225_600_000);
  });

  it('refuses anything else as a usage error naming the flag', () => {
    for (const v of ['tomorrow', '7 days', '-3d', '2026-13-45x'])
      expect(() => parseTime('--until', v, 'past', NOW)).toThrow(UsageError);
    expect(() => parseTime('--until', 'soon', 'past', NOW)).toThrow(/^--until must be an ISO 8601 date/);
  });
});
