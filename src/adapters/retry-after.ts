// An upstream's Retry-After header → milliseconds to wait: delta-seconds or an HTTP date (RFC 9110 §10.2.3).

/** Milliseconds the header asks to wait (0 for a date already past); undefined when absent or unreadable. */
export function retryAfterMs(
  header: string | readonly string[] | null | undefined,
  now: number = Date.now(),
): number | undefined {
  const v = Array.isArray(header) ? header[0] : header;
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  if (t === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(t)) return Math.round(Number(t) * 1000);
  // An HTTP date names its day and month; a bare number that is not delta-seconds is no date.
  if (!/[A-Za-z]/.test(t)) return undefined;
  const at = Date.parse(t);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
