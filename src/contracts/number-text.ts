// Numbers as text, the same text String() and toString(radix) give. V8 writes an integer below 2^30 through its
// fast path, but an epoch-ms time or a fraction goes through its generic double printing, a costly runtime call
// (docs/performance.md, "Hot-path notes"): the request id and the access line write such numbers on every request.

const SMALL = 0x3fffffff;

/** A non-negative integer (up to 2^53) as `n.toString(radix)` writes it (radix 10 or 16), in parts below 2^30. */
export function integerText(n: number, radix: 10 | 16 = 10): string {
  if (n <= SMALL) return n.toString(radix);
  // Six digits in the low part (10^6 or 16^6). For an epoch-ms time the high part is below 2^30 too; a larger n is
  // still written right, only not all on the fast path.
  const unit = radix === 16 ? 0x1000000 : 1e6;
  const high = Math.floor(n / unit);
  return high.toString(radix) + (n - high * unit).toString(radix).padStart(6, '0');
}

/**
 * A latency in ms (non-negative, rounded to hundredths by the caller) as String() writes it; any other number falls
 * back to String().
 */
export function hundredthsText(n: number): string {
  const h = Math.round(n * 100);
  if (!(h >= 0 && h <= SMALL && h / 100 === n)) return String(n);
  const whole = Math.floor(h / 100);
  const frac = h - whole * 100;
  if (frac === 0) return String(whole);
  // Trailing zeros dropped: 3.2, not 3.20.
  return frac % 10 === 0 ? `${whole}.${frac / 10}` : `${whole}.${frac < 10 ? '0' : ''}${frac}`;
}
