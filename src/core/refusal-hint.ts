// A text call refused for want of room names the max_tokens that would fit. Its reservation counts the output limit
// it names (max_tokens …), or DEFAULT_OUTPUT_RESERVE output tokens when it names none (charge.ts textReservation): a
// charge never exceeds its hold, so the reservation is not cut to what is left; the refusal says what to set instead.
import { isGatewayError } from '../errors/gateway-error.ts';
import { LimitRefusal, limitRefusal } from '../metering/refusal.ts';
import type { TokenUsage, Usage } from '../vocabulary/usage.ts';

/** The largest output token count whose price, with the call's input, is at most `left` (-1: not even none). */
function outputThatFits(estimate: TokenUsage, left: number, price: (u: TokenUsage) => number): number {
  if (price({ ...estimate, outputTokens: 0 }) > left) return -1;
  let lo = 0;
  let hi = estimate.outputTokens;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (price({ ...estimate, outputTokens: mid }) <= left) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** `e` with the text call's own hint when it is a refusal of a call reserving output tokens; else `e` itself. */
export function withOutputHint(
  e: unknown,
  estimate: Usage,
  price: (u: TokenUsage) => number,
  now: () => number,
): unknown {
  if (!isGatewayError(e) || !(e instanceof LimitRefusal)) return e;
  const r = e.refused;
  if (estimate.kind !== 'tokens' || estimate.outputTokens <= 0 || r.left <= 0) return e;
  const fits = outputThatFits(estimate, r.left, price);
  const reserved = `it reserves ${estimate.outputTokens} output tokens (its max_tokens, or ${estimate.outputTokens} when it sets none)`;
  const hint =
    fits > 0 ? `${reserved}: with max_tokens at most ${fits} it fits now` : `its input alone is above what is left`;
  return limitRefusal(r, now(), hint);
}
