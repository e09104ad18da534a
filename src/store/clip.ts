// Text bound for a varchar column. PostgreSQL refuses a longer value (SQLite does not check), and a refused row in
// a group commit would hold its whole batch back: values that come from outside — a request path, an upstream's
// request id — are cut to the column's length before they are queued.

export function clip<T extends string | null | undefined>(s: T, max: number): T {
  return (typeof s === 'string' && s.length > max ? s.slice(0, max) : s) as T;
}
