// The refusal of a hold that does not fit (holds.ts): which limit refused, the estimate and what the limit leaves,
// in words a person can act on. "Used up" and a Retry-After only when nothing is left (waiting for the period to
// start again is then what helps); otherwise the estimate is above what is left, and a smaller call fits now.
import { GatewayError } from '../errors/gateway-error.ts';
import { formatUnits } from '../pricing/prices.ts';

/** Which limit refused a hold, and by how much: what the refusal names, and the limit-reached alert (alerts/). */
export interface LimitRefused {
  holderKind: 'token' | 'account';
  holderId: string;
  limitKind: 'quota' | 'budget';
  /** A budget's period (day, week, month); null for a quota. */
  period: string | null;
  /** A budget's current period [start, end) (ms); null for a quota. */
  periodStart: number | null;
  periodEnd: number | null;
  /** The limit in micro-units (null when it could not be read). */
  limit: number | null;
  /** What the call or task would hold (micro-units). */
  estimate: number;
  /** What the limit leaves: max(0, limit − spent − held) (micro-units). */
  left: number;
  /** A call answered at once, or an async task. */
  subject: 'call' | 'task';
}

/** The 429 insufficient_quota that carries what refused (`refused`), so a caller can add to it or announce it. */
export class LimitRefusal extends GatewayError {
  constructor(
    readonly refused: LimitRefused,
    message: string,
    headers: Record<string, string> | undefined,
  ) {
    super('insufficient_quota', message, headers ? { headers } : {});
  }
}

const limitName = (r: LimitRefused) =>
  `the ${r.holderKind}'s ${r.limitKind === 'quota' ? 'quota' : `${r.period} budget`}`;

/**
 * The refusal of `r` at `now`: its message and, for a budget, its headers. `smaller`: what a smaller call would be
 * (the caller knows its request: a text call names the max_tokens that fits).
 */
export function limitRefusal(
  r: LimitRefused,
  now: number,
  smaller = `a smaller ${r.subject} may fit now`,
): LimitRefusal {
  const name = limitName(r);
  const reset = r.periodEnd === null ? null : new Date(r.periodEnd).toISOString();
  const headers: Record<string, string> | undefined =
    reset === null ? undefined : { 'x-budget-reset': reset, 'x-budget-period': String(r.period) };
  if (r.left <= 0) {
    const then = reset === null ? ' (a top-up raises it)' : `; it starts again at ${reset}`;
    if (headers && r.periodEnd !== null)
      headers['retry-after'] = String(Math.max(1, Math.ceil((r.periodEnd - now) / 1000)));
    return new LimitRefusal(r, `${capital(name)} is used up${then}`, headers);
  }
  const wait = reset === null ? '' : `, or wait until ${reset}`;
  return new LimitRefusal(
    r,
    `This ${r.subject}'s estimate (${formatUnits(r.estimate)} units) is above what is left of ${name} ` +
      `(${formatUnits(r.left)} units); ${smaller}${wait}`,
    headers,
  );
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
