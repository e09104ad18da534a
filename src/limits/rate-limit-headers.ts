// The x-ratelimit-* headers, in OpenAI's names and formats: the limit, what is left of it in the current window, and
// the time until the window resets as a duration ("850ms", "20s", "1m0s").
import type { WindowCount } from './counters.ts';

/** A duration as OpenAI writes its reset headers: milliseconds under a second, else whole seconds rounded up. */
export function resetDuration(ms: number): string {
  if (ms <= 0) return '0s';
  if (ms < 1000) return `${Math.ceil(ms)}ms`;
  const s = Math.ceil(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${s % 60}s`;
}

/** Retry-After (whole seconds, at least 1) for a refusal by a window that resets in `ms`. */
export function retryAfterSeconds(ms: number): string {
  return String(Math.max(1, Math.ceil(ms / 1000)));
}

/**
 * The headers of one answer: the requests trio with a requests-per-minute limit, the tokens trio with a
 * tokens-per-minute limit. Null when the token has neither.
 */
export function rateLimitHeaders(
  rpm: number | null,
  requests: WindowCount | null,
  tpm: number | null,
  tokens: WindowCount | null,
): Record<string, string> | null {
  if (requests === null && tokens === null) return null;
  const h: Record<string, string> = {};
  if (rpm !== null && requests !== null) {
    h['x-ratelimit-limit-requests'] = String(rpm);
    h['x-ratelimit-remaining-requests'] = String(Math.max(0, rpm - requests.n));
    h['x-ratelimit-reset-requests'] = resetDuration(requests.resetMs);
  }
  if (tpm !== null && tokens !== null) {
    h['x-ratelimit-limit-tokens'] = String(tpm);
    h['x-ratelimit-remaining-tokens'] = String(Math.max(0, tpm - tokens.n));
    h['x-ratelimit-reset-tokens'] = resetDuration(tokens.resetMs);
  }
  return h;
}
