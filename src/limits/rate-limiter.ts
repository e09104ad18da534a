// Per-token limits: requests per minute, tokens per minute and requests in flight, counted in memory or, with
// REDIS_URL, in Redis so every gateway instance shares them (counters.ts). Tokens without limits cost nothing: the
// fronts admit them without calling in here (front/record.ts).
//
// Tokens per minute are counted after a call settles (the tokens its metered usage reports, input + output), and a
// call is refused while the current window is already at or over the limit. So the window can overshoot the limit
// by the calls admitted before it was reached — one call's tokens for calls made one after another, the tokens of
// every call then in flight otherwise. Every request, admitted or refused, counts toward the requests window.
import { GatewayError } from '../errors/gateway-error.ts';
import type { Principal } from '../auth/principal.ts';
import { MemoryAddressWindows, type AddressCount, type AddressWindows } from './address-windows.ts';
import type { LimitCounters, WindowCount } from './counters.ts';
import { rateLimitHeaders, retryAfterSeconds, type HeaderStyle } from './rate-limit-headers.ts';

export { MemoryCounters, RedisCounters, type LimitCounters } from './counters.ts';
export { MemoryAddressWindows, RedisAddressWindows, type AddressCount } from './address-windows.ts';

export const WINDOW_MS = 60_000;

/** Whether a token has any limit to apply: one without is admitted with no counting and no headers. */
export function hasLimits(p: Principal): boolean {
  return p.rpmLimit !== null || p.tpmLimit !== null || p.concurrencyLimit !== null;
}

export interface Admission {
  /** Frees the call's in-flight slot (a concurrency limit); calling it more than once frees one slot. */
  release: (() => void) | null;
  /** The answer's rate-limit headers (rate-limit-headers.ts); null without a requests or tokens limit. */
  headers: Record<string, string> | null;
}

const UNCOUNTED: Admission = { release: null, headers: null };

export class RateLimiter {
  /**
   * `windowMs` is a minute; tests shorten it to see a window reset without waiting. `onCountersDown` hears of a
   * counter store (Redis) that failed: limits protect the upstream, they do not bill, so the request is admitted
   * uncounted rather than refused with an error the client cannot act on. `addresses` holds the windows of
   * unauthenticated events per client address, apart from the token windows in `counters` (address-windows.ts).
   */
  constructor(
    private readonly counters: LimitCounters,
    private readonly windowMs = WINDOW_MS,
    private readonly onCountersDown: (e: unknown) => void = () => {},
    private readonly addresses: AddressWindows = new MemoryAddressWindows(),
  ) {}

  /**
   * Admit a request or throw 429 (Retry-After: until the refusing window resets; the rate-limit headers), the
   * headers in `style`.
   */
  async admit(p: Principal, style: HeaderStyle = 'openai'): Promise<Admission> {
    try {
      return await this.counted(p, style);
    } catch (e) {
      if (e instanceof GatewayError) throw e;
      this.onCountersDown(e);
      return UNCOUNTED;
    }
  }

  private async counted(p: Principal, style: HeaderStyle): Promise<Admission> {
    const rpm = p.rpmLimit;
    const tpm = p.tpmLimit;
    // Both windows in one round of requests.
    const [requests, tokens] = await Promise.all([
      rpm === null ? null : this.counters.add(`req:${p.tokenId}`, 1, this.windowMs),
      tpm === null ? null : this.counters.read(`tok:${p.tokenId}`),
    ]);
    const headers = rateLimitHeaders(rpm, requests, tpm, tokens, style, Date.now());
    const refusal = refusedBy(rpm, requests, tpm, tokens);
    if (refusal)
      throw new GatewayError('rate_limit_exceeded', refusal.message, {
        headers: { ...headers, 'retry-after': retryAfterSeconds(refusal.resetMs) },
      });
    if (p.concurrencyLimit === null) return { release: null, headers };
    const n = await this.counters.incrConcurrent(p.tokenId);
    if (n > p.concurrencyLimit) {
      await this.counters.decrConcurrent(p.tokenId);
      throw new GatewayError(
        'concurrency_limited',
        `Concurrency limit of ${p.concurrencyLimit} in-flight requests exceeded`,
        {
          headers: { ...headers, 'retry-after': '1' },
        },
      );
    }
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      void this.counters.decrConcurrent(p.tokenId).catch(() => undefined);
    };
    return { release, headers };
  }

  /**
   * Count a settled call's tokens against its token's tokens-per-minute window. The request path does not await
   * it (the answer is already on its way); a count lost to a Redis failure only loosens the limit for one window.
   */
  async addTokens(p: Principal, n: number): Promise<void> {
    if (p.tpmLimit === null || !(n > 0)) return;
    await this.counters.add(`tok:${p.tokenId}`, n, this.windowMs).catch(() => undefined);
  }

  /**
   * Count one event of a client address under `key` in a window of `windowMs` (wrong admin keys), shared like the
   * limits; from `lockAt` events on, the window is kept to its end.
   */
  countEvent(key: string, windowMs: number, lockAt: number): Promise<AddressCount> {
    return this.addresses.add(`evt:${key}`, windowMs, lockAt).catch((e: unknown) => this.uncounted(e));
  }

  /** The events counted under `key` in its open window (none while the counters cannot be reached). */
  events(key: string): Promise<AddressCount> {
    return this.addresses.read(`evt:${key}`).catch((e: unknown) => this.uncounted(e));
  }

  private uncounted(e: unknown): AddressCount {
    this.onCountersDown(e);
    return { n: 0, resetMs: 0, full: false };
  }

  close(): Promise<void> {
    return this.counters.close();
  }
}

/** Which window refuses the request, and when it resets (the later of the two when both do). */
function refusedBy(
  rpm: number | null,
  requests: WindowCount | null,
  tpm: number | null,
  tokens: WindowCount | null,
): { message: string; resetMs: number } | null {
  const overRequests = rpm !== null && requests !== null && requests.n > rpm;
  const overTokens = tpm !== null && tokens !== null && tokens.n >= tpm;
  if (!overRequests && !overTokens) return null;
  const parts: string[] = [];
  if (overRequests) parts.push(`${rpm} requests per minute`);
  if (overTokens) parts.push(`${tpm} tokens per minute`);
  const resetMs = Math.max(overRequests ? requests!.resetMs : 0, overTokens ? tokens!.resetMs : 0);
  return { message: `Rate limit of ${parts.join(' and ')} reached; retry after the window resets`, resetMs };
}
