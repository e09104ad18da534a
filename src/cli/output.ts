// What a command prints: the admin API's own JSON with --json, else the same answer as lines a person reads — one
// "name: value" line per field for one thing, a table for a list — with times as ISO dates and money as sent.

/** Where the CLI writes: the process's streams, or a test's buffers. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
}

type Row = Record<string, unknown>;

export const isTime = (key: string): boolean => /(_at|_until|^since|^until|^from|^to)$/.test(key);

/** One value as text: times (ms since the epoch, in a field named as one) as ISO, null as "-", objects as JSON. */
export function cell(key: string, v: unknown): string {
  if (v === null || v === undefined) return '-';
  if (typeof v === 'number' && isTime(key) && v > 0) return new Date(v).toISOString();
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** "name: value" lines for the fields of one thing (all of them, or `keys`). */
export function fields(o: Row, keys: readonly string[] = Object.keys(o)): string {
  const shown = keys.filter((k) => k in o);
  const width = Math.max(0, ...shown.map((k) => k.length)) + 1;
  return shown.map((k) => `${`${k}:`.padEnd(width)} ${cell(k, o[k])}`).join('\n');
}

/** A table of `rows` with `columns` (field names, also the headers). */
export function table(rows: readonly Row[], columns: readonly string[]): string {
  if (rows.length === 0) return '(none)';
  const cells = rows.map((r) => columns.map((c) => cell(c, r[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  const line = (vs: readonly string[]) =>
    vs
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(columns), ...cells.map(line)].join('\n');
}

export interface Page {
  data: Row[];
  has_more: boolean;
  next_cursor?: string;
}

/** A page of an admin list as a table, and how to ask for the next one. */
export function pageText(p: Page, columns: readonly string[]): string {
  const more = p.has_more && p.next_cursor ? `\nmore: repeat with --after ${p.next_cursor}` : '';
  return table(p.data, columns) + more;
}

/** A secret shown once: set apart, so it is seen and copied before anything else. */
export function secretText(label: string, secret: string, note: string): string {
  return `${label}: ${secret}\n  (${note})`;
}
