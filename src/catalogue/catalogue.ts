import type { ModelEntry, ResolvedModel } from './types.ts';

// A dated snapshot: base name + '-' + a date (2025-01-01 or 20250101 style).
const SNAPSHOT_SUFFIX = /^(.+)-(\d{4}-\d{2}-\d{2}|\d{8})$/;

/** The model catalogue: public name → entry. Immutable once built; rebuild to apply overrides. */
export class Catalogue {
  private readonly byId = new Map<string, ModelEntry>();
  private readonly aliases = new Map<string, string>();
  // Answers of resolve(), frozen and shared (the catalogue never changes): one object per model, not per request.
  private readonly resolved = new Map<string, ResolvedModel>();

  constructor(entries: ModelEntry[]) {
    for (const e of entries) {
      this.byId.set(e.id, e);
      for (const a of e.aliases ?? []) this.aliases.set(a, e.id);
    }
  }

  entries(): ModelEntry[] {
    return [...this.byId.values()];
  }

  get(id: string): ModelEntry | undefined {
    return this.byId.get(id);
  }

  /** Normalise a historical alias to its canonical name (e.g. vidx-v2-5 → vidx-v2-5-turbo). */
  canonicalName(name: string): string {
    return this.aliases.get(name) ?? name;
  }

  /** Resolve a public name: aliases, then exact, then dated snapshots of a snapshot-capable base. */
  resolve(name: string): ResolvedModel | null {
    const known = this.resolved.get(name);
    if (known !== undefined) return known;
    const r = this.resolveNew(name);
    // Only names that resolve are kept (misses cannot fill it); bounded all the same.
    if (r !== null) {
      if (this.resolved.size >= 1000) this.resolved.clear();
      this.resolved.set(name, r);
    }
    return r;
  }

  private resolveNew(name: string): ResolvedModel | null {
    const canonical = this.canonicalName(name);
    const exact = this.byId.get(canonical);
    if (exact)
      return Object.freeze({
        entry: exact,
        publicName: canonical,
        upstreamModel: exact.upstreamModel,
        billingModel: exact.id,
      });
    const m = SNAPSHOT_SUFFIX.exec(canonical);
    if (m) {
      const base = this.byId.get(m[1]!);
      if (base?.snapshots) {
        return Object.freeze({
          entry: base,
          publicName: canonical,
          upstreamModel: `${base.upstreamModel}-${m[2]}`,
          billingModel: base.id,
        });
      }
    }
    return null;
  }
}

/** Apply operator overrides (shallow per top-level field; `price` replaced whole). */
export function applyOverrides(
  base: ModelEntry[],
  overrides: Array<{ model: string; entry: Partial<ModelEntry> }>,
): ModelEntry[] {
  const map = new Map(base.map((e) => [e.id, e]));
  for (const o of overrides) {
    const cur = map.get(o.model);
    if (cur) map.set(o.model, { ...cur, ...o.entry, id: cur.id });
    else if (isCompleteEntry(o.entry)) map.set(o.model, { ...o.entry, id: o.model });
  }
  return [...map.values()];
}

function isCompleteEntry(e: Partial<ModelEntry>): e is ModelEntry {
  return (
    typeof e.kind === 'string' &&
    typeof e.upstream === 'string' &&
    typeof e.upstreamModel === 'string' &&
    e.price !== undefined
  );
}
