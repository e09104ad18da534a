// A part of a whole as a native <meter> bar (no inline style: the console's CSP has none), its percentage beside it
// and in its accessible name.

/** A share of a whole as a bar, with its percentage as its accessible name. */
export function Share({ part, whole, of }: { part: number; whole: number; of: string }) {
  const pct = whole > 0 ? Math.round((part / whole) * 1000) / 10 : 0;
  return (
    <span class="share">
      <meter min={0} max={Math.max(whole, 1)} value={part} aria-label={`${of}: ${pct}%`} />
      <span class="muted">{pct}%</span>
    </span>
  );
}
