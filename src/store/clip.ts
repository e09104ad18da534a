// Text bound for a varchar column. PostgreSQL refuses a longer value (SQLite does not check), and a refused row is
// set aside unwritten (group-commit.ts): values that come from outside — a request path, an upstream's request id —
// are cut to the column's length when a row becomes columns, on both dialects alike.

export function clip<T extends string | null | undefined>(s: T, max: number): T {
  return (typeof s === 'string' && s.length > max ? s.slice(0, max) : s) as T;
}
