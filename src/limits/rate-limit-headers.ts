// The rate-limit headers of an answer, in the conventions of the API a client speaks: OpenAI's x-ratelimit-* (the
// time until the window resets as a duration: "850ms", "20s", "1m0s") and, on the messages API, Anthropic's
// anthropic-ratelimit-* (the time the window resets, in RFC 3339).
import type { WindowCount } from './counters.ts';

/** Whose header names and formats an answer carries. */
export type HeaderStyle = 'openai' | 'anthropic';

/** A duration as OpenAI writes its reset headers: milliseconds under a second, else whole seconds rounded up. */
export function resetDuration(ms: number): string {
  if (ms <= 0) return '0s';
  if (ms < 1000) return `${Math.ceil(ms)}ms`;
  const s = Math.ceil(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${s % 60}s`;
}

/** The instant `ms` after `now` as Anthropic writes its reset headers: RFC 3339 in UTC, whole seconds rounded up. */
export function resetInstant(now: number, ms: number): string {
  return `${new Date(Math.ceil((now + Math.max(0, ms)) / 1000) * 1000).toISOString().slice(0, 19)}Z`;
}

/** Retry-After (whole seconds, at least 1) for a refusal by a window that resets in `ms`. */
export function retryAfterSeconds(ms: number): string {
  return String(Math.max(1, Math.ceil(ms / 1000)));
}

/**
 * The headers of one answer: the requests trio with a requests-per-minute limit, the tokens trio with a
 * tokens-per-minute limit (input and output together: the one limit a token has). Null when the token has neither.
 */
export function rateLimitHeaders(
  rpm: number | null,
  requests: WindowCount | null,
  tpm: number | null,
  tokens: WindowCount | null,
  style: HeaderStyle,
  now: number,
): Record<string, string> | null {
  if (requests === null && tokens === null) return null;
  const h: Record<string, string> = {};
  if (rpm !== null && requests !== null) trio(h, style, 'requests', rpm, requests, now);
  if (tpm !== null && tokens !== null) trio(h, style, 'tokens', tpm, tokens, now);
  return h;
}

function trio(
  h: Record<string, string>,
  style: HeaderStyle,
  kind: 'requests' | 'tokens',
  limit: number,
  w: WindowCount,
  now: number,
): void {
  const remaining = String(Math.max(0, limit - w.n));
  if (style === 'anthropic') {
    h[`anthropic-ratelimit-${kind}-limit`] = String(limit);
    h[`anthropic-ratelimit-${kind}-remaining`] = remaining;
    h[`anthropic-ratelimit-${kind}-reset`] = resetInstant(now, w.resetMs);
  } else {
    h[`x-ratelimit-limit-${kind}`] = String(limit);
    h[`x-ratelimit-remaining-${kind}`] = remaining;
    h[`x-ratelimit-reset-${kind}`] = resetDuration(w.resetMs);
  }
}
