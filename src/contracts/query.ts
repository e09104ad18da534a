// Query-string readers shared by every route that takes paging or filter parameters:
// a bad value is a 400 invalid_parameter naming the parameter, never silently clamped.
import { GatewayError } from '../errors/gateway-error.ts';

export type Query = Record<string, string | string[] | undefined>;

/** A single-valued string query parameter (repeated → 400). */
export function qString(q: Query, key: string, max = 200): string | undefined {
  const v = q[key];
  if (v === undefined || v === '') return undefined;
  if (Array.isArray(v)) throw new GatewayError('invalid_parameter', `${key} must be given once`, { param: key });
  if (v.length > max)
    throw new GatewayError('invalid_parameter', `${key} must be at most ${max} characters`, { param: key });
  return v;
}

const MAX_TIME_MS = 8.64e15;

/** Is the text's leading YYYY-MM-DD a day of the calendar? (Date.parse takes 2026-02-30 as the 2nd of March.) */
function realDate(v: string): boolean {
  const y = Number(v.slice(0, 4));
  const m = Number(v.slice(5, 7));
  const d = Number(v.slice(8, 10));
  const day = new Date(Date.UTC(y, m - 1, d));
  return day.getUTCFullYear() === y && day.getUTCMonth() === m - 1 && day.getUTCDate() === d;
}

/** A time bound: integer milliseconds since the epoch, or an ISO 8601 date/date-time (UTC unless it says). */
export function qTime(q: Query, key: string): number | undefined {
  const v = qString(q, key, 64);
  if (v === undefined) return undefined;
  // Up to the last instant a Date can hold (8.64e15 ms): a larger number would not be echoed back as sent.
  if (/^\d{1,16}$/.test(v)) {
    const n = Number(v);
    if (n <= MAX_TIME_MS) return n;
  } else if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) && realDate(v)) {
    const withZone = /^\d{4}-\d{2}-\d{2}$/.test(v) || /(Z|[+-]\d{2}:?\d{2})$/.test(v) ? v : `${v}Z`;
    const t = Date.parse(withZone);
    if (Number.isFinite(t)) return t;
  }
  throw new GatewayError(
    'invalid_parameter',
    `${key} must be milliseconds since the epoch or an ISO 8601 date (e.g. 2026-01-31 or 2026-01-31T12:00:00Z)`,
    {
      param: key,
    },
  );
}

export function qInt(q: Query, key: string, min: number, max: number, def?: number): number | undefined {
  const v = qString(q, key, 20);
  if (v === undefined) return def;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new GatewayError('invalid_parameter', `${key} must be an integer between ${min} and ${max}`, { param: key });
  }
  return Number(v);
}

export function qEnum<T extends string>(q: Query, key: string, values: readonly T[], def: T): T {
  const v = qString(q, key, 20);
  if (v === undefined) return def;
  if (!(values as readonly string[]).includes(v))
    throw new GatewayError('invalid_parameter', `${key} must be one of ${values.join(', ')}`, { param: key });
  return v as T;
}

/** The paging parameters of an admin list (`limit` 1–1000, default 100; `cursor`), any other parameter refused. */
export function qPage(q: Query, filters: readonly string[] = []): { limit: number; cursor: string | undefined } {
  qOnly(q, ['limit', 'cursor', ...filters]);
  return { limit: qInt(q, 'limit', 1, 1000, 100)!, cursor: qString(q, 'cursor', 400) };
}

/** Refuse a parameter the route does not know: a misspelt filter must not silently list everything. */
export function qOnly(q: Query, known: readonly string[]): void {
  for (const key of Object.keys(q)) {
    if (!known.includes(key))
      throw new GatewayError(
        'invalid_parameter',
        `Unknown query parameter ${key}; this endpoint takes ${known.length ? known.join(', ') : 'none'}`,
        {
          param: key,
        },
      );
  }
}
