// Reading flag values into the admin API's body fields. Only the form is checked here (a number is a number, JSON
// is JSON); what a value means is the server's to judge, with its own words.
import { UsageError } from './client.ts';
import { parseTime, type Direction } from './times.ts';

type Flag = string | undefined;

/**
 * --models: model names, comma-separated; undefined when the flag is absent. Given but naming none (`""`, `","` — an
 * empty variable in a script) is a usage error: absent means every model, and an empty value must not grant that.
 */
export function modelList(v: Flag): string[] | undefined {
  if (v === undefined) return undefined;
  const names = list(v);
  if (names.length === 0)
    throw new UsageError(
      `--models needs one or more model names, comma-separated (got "${v}"); leave it out for every model`,
    );
  return names;
}

/** A comma-separated list (--events a,b). */
export const list = (v: string): string[] =>
  v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/** A non-negative integer, or undefined when the flag is absent. */
export function num(flag: string, v: Flag): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v.trim())) throw new UsageError(`${flag} must be a non-negative integer, got "${v}"`);
  return Number(v);
}

/** An integer (negative allowed, given as --priority=-5), or undefined when the flag is absent. */
export function int(flag: string, v: Flag): number | undefined {
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v.trim())) throw new UsageError(`${flag} must be an integer, got "${v}"`);
  return Number(v);
}

/** A time flag (ISO 8601, a span such as 7d, or ms), as ms; undefined when absent. */
export const time = (flag: string, v: Flag, direction: Direction): number | undefined =>
  v === undefined ? undefined : parseTime(flag, v, direction);

/** A JSON value given to a flag (e.g. --model-limits '{"*":{"rpm":60}}'). */
export function jsonFlag(flag: string, v: Flag): unknown {
  if (v === undefined) return undefined;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    throw new UsageError(`${flag} must be JSON, got "${v}"`);
  }
}

/** For an edit: absent → not sent; `none` → null (remove); else the parsed value. */
export function orNone<T>(v: Flag, parse: (s: string) => T): T | null | undefined {
  if (v === undefined) return undefined;
  return v === 'none' ? null : parse(v);
}

/** A JSON body from the flags that were given (absent flags leave their field out). */
export const defined = (o: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** --budget PERIOD=LIMIT (repeatable) → budgets; `--budget none` → no budgets; absent → undefined. */
export function budgetFlags(v: string[] | undefined): Array<{ period: string; limit: number }> | null | undefined {
  if (v === undefined) return undefined;
  if (v.length === 1 && v[0] === 'none') return null;
  return v.map((b) => {
    const m = /^(\w+)=(\d+)$/.exec(b.trim());
    if (!m) throw new UsageError(`--budget must be PERIOD=LIMIT (day, week or month; micro-units), got "${b}"`);
    return { period: m[1]!, limit: Number(m[2]) };
  });
}

/** --enable / --disable → enabled (they exclude each other). */
export function enabledFlag(opts: { enable?: unknown; disable?: unknown }): boolean | undefined {
  if (opts.enable && opts.disable) throw new UsageError('--enable and --disable exclude each other');
  return opts.enable ? true : opts.disable ? false : undefined;
}

/** The paging of an admin list: --limit N, --after CURSOR (the previous page's next_cursor). */
export const pageQuery = (o: Record<string, unknown>) => ({
  limit: num('--limit', o.limit as Flag),
  cursor: o.after as Flag,
});
