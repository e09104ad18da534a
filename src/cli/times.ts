// Times on the command line: milliseconds since the epoch, an ISO 8601 date or date-time (UTC unless it says), or a
// span from now (`7d`, `12h`, `30m`, `2w`): before now for a bound of a report (--since 7d), after now for an
// expiry (--expires-at 30d). The admin API is sent milliseconds.
import { UsageError } from './client.ts';

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

export type Direction = 'past' | 'future';

export function parseTime(flag: string, v: string, direction: Direction, now = Date.now()): number {
  const t = v.trim();
  if (/^\d{1,16}$/.test(t)) return Number(t);
  const span = /^(\d+)([smhdw])$/.exec(t);
  if (span) {
    const ms = Number(span[1]) * UNIT_MS[span[2]!]!;
    return direction === 'past' ? now - ms : now + ms;
  }
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(t)) {
    const zoned = /^\d{4}-\d{2}-\d{2}$/.test(t) || /(Z|[+-]\d{2}:?\d{2})$/.test(t) ? t : `${t}Z`;
    const ms = Date.parse(zoned);
    if (Number.isFinite(ms)) return ms;
  }
  throw new UsageError(
    `${flag} must be an ISO 8601 date or date-time (2026-01-31, 2026-01-31T12:00:00Z), a span such as 7d, 12h or 30m (${direction === 'past' ? 'ago' : 'from now'}), or milliseconds since the epoch; got "${v}"`,
  );
}
