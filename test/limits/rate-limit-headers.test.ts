// The rate-limit headers' formats: OpenAI's reset durations, and Anthropic's headers with their RFC 3339 reset instants.
import { describe, expect, it } from 'vitest';
import { rateLimitHeaders, resetDuration, resetInstant } from '../../src/limits/rate-limit-headers.ts';

describe("reset durations in OpenAI's format", () => {
  it('milliseconds under a second, whole seconds rounded up, minutes and seconds from a minute', () => {
    expect([0, 850, 1_000, 19_200, 59_999, 60_000, 61_000].map(resetDuration)).toEqual([
      '0s',
      '850ms',
      '1s',
      '20s',
      '1m0s',
      '1m0s',
      '1m1s',
    ]);
  });
});

describe("Anthropic's headers (the messages API)", () => {
  it('the limit, what is left and the reset instant in RFC 3339 (UTC, whole seconds rounded up), for each limit the token has', () => {
    const now = Date.UTC(2026, 11, 2, 0, 59, 30, 250);
    expect(resetInstant(now, 29_750)).toBe('2026-12-02T01:00:00Z');
    expect(resetInstant(now, 29_751)).toBe('2026-12-02T01:00:01Z');
    expect(resetInstant(now, 0)).toBe('2026-12-02T00:59:31Z');
    expect(
      rateLimitHeaders(10, { n: 4, resetMs: 20_000 }, 1000, { n: 1200, resetMs: 5_000 }, 'anthropic', now),
    ).toEqual({
      'anthropic-ratelimit-requests-limit': '10',
      'anthropic-ratelimit-requests-remaining': '6',
      'anthropic-ratelimit-requests-reset': '2026-12-02T00:59:51Z',
      'anthropic-ratelimit-tokens-limit': '1000',
      'anthropic-ratelimit-tokens-remaining': '0',
      'anthropic-ratelimit-tokens-reset': '2026-12-02T00:59:36Z',
    });
    expect(rateLimitHeaders(null, null, 50, { n: 0, resetMs: 0 }, 'anthropic', now)).toEqual({
      'anthropic-ratelimit-tokens-limit': '50',
      'anthropic-ratelimit-tokens-remaining': '50',
      'anthropic-ratelimit-tokens-reset': '2026-12-02T00:59:31Z',
    });
  });
});
