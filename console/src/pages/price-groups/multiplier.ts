// A price group's multiplier as typed in the console, read as the API takes it.

/** "1.5" → 1.5 when it is a multiplier the API takes (0 to 1000, at most 6 decimals); else null. */
export function multiplierOf(text: string): number | null {
  const t = text.trim();
  if (!/^\d{1,4}(\.\d{1,6})?$/.test(t)) return null;
  const m = Number(t);
  return m <= 1000 ? m : null;
}
