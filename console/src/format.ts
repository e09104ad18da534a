// Display helpers. Money is integer micro-units (1 unit = 1,000,000), shown as exact decimals.

export function units(micro: number | string | null | undefined): string {
  if (micro === null || micro === undefined) return '—';
  // A sum past 2^53 comes as a string of digits (the API's exact amounts): formatted exactly.
  if (typeof micro === 'string') {
    const v = BigInt(micro);
    const abs = v < 0n ? -v : v;
    const frac = String(abs % 1_000_000n)
      .padStart(6, '0')
      .replace(/0{1,4}$/, '');
    return `${v < 0n ? '-' : ''}${(abs / 1_000_000n).toLocaleString('en')}.${frac.padEnd(2, '0')}`;
  }
  const neg = micro < 0;
  const abs = Math.abs(micro);
  const whole = Math.floor(abs / 1_000_000);
  const frac = String(abs % 1_000_000)
    .padStart(6, '0')
    .replace(/0{1,4}$/, '');
  return `${neg ? '-' : ''}${whole.toLocaleString('en')}.${frac.padEnd(2, '0')}`;
}

export function time(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** A datetime-local input's value as ms since the epoch, or undefined when empty. */
export function fromLocalInput(v: string): number | undefined {
  if (!v) return undefined;
  const t = new Date(v).getTime();
  return Number.isFinite(t) ? t : undefined;
}

export function num(n: number | null | undefined): string {
  return n === null || n === undefined ? '—' : n.toLocaleString('en');
}

/** "1 request", "3 requests"; `plural` where adding an s is wrong ("1 entry", "3 entries"). */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${num(n)} ${n === 1 ? noun : plural}`;
}

/** Quantities or unit prices of a ledger line as "key: value" pairs. */
export function pairs(o: unknown): Array<[string, string]> {
  if (!o || typeof o !== 'object') return [];
  return Object.entries(o as Record<string, unknown>)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => [k, typeof v === 'object' ? JSON.stringify(v) : String(v)]);
}

/**
 * An amount typed in units ("12.5") as integer micro-units, exactly (no float rounding): null when empty, NaN when it
 * is not a non-negative decimal with at most six decimals (or too large to be exact).
 */
export function parseUnits(v: string): number | null {
  const s = v.trim();
  if (s === '') return null;
  const m = /^(\d+)(?:\.(\d{1,6}))?$/.exec(s);
  if (!m) return NaN;
  const micro = Number(m[1]) * 1_000_000 + Number((m[2] ?? '').padEnd(6, '0'));
  return Number.isSafeInteger(micro) ? micro : NaN;
}

/** Integer micro-units as what parseUnits reads back ("" for null). */
export function unitsInput(micro: number | null): string {
  if (micro === null) return '';
  const frac = String(micro % 1_000_000)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return `${Math.floor(micro / 1_000_000)}${frac ? `.${frac}` : ''}`;
}

/** ms since the epoch as a datetime-local input's value (local time), "" for null. */
export function toLocalInput(ms: number | null): string {
  if (ms === null) return '';
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}
