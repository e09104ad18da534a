// Display helpers. Money is integer micro-units (1 unit = 1,000,000), shown as exact decimals.

export function units(micro: number | null | undefined): string {
  if (micro === null || micro === undefined) return '—';
  const neg = micro < 0;
  const abs = Math.abs(micro);
  const whole = Math.floor(abs / 1_000_000);
  const frac = String(abs % 1_000_000).padStart(6, '0').replace(/0{1,4}$/, '');
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

/** Quantities or unit prices of a ledger line as "key: value" pairs. */
export function pairs(o: unknown): Array<[string, string]> {
  if (!o || typeof o !== 'object') return [];
  return Object.entries(o as Record<string, unknown>)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => [k, typeof v === 'object' ? JSON.stringify(v) : String(v)]);
}
