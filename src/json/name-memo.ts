// What is made from model names — their JSON text, the texts a rename looks for and writes — kept per name: the same
// few names (the catalogue's) come with every call. Bounded: past the bound a memo is cleared, not evicted, which
// only a client sending many distinct names would reach.
const BOUND = 1000;

/** `make(name)`, kept per name. */
export function nameMemo<T>(make: (name: string) => T): (name: string) => T {
  const kept = new Map<string, T>();
  return (name) => {
    let v = kept.get(name);
    if (v === undefined) {
      if (kept.size >= BOUND) kept.clear();
      kept.set(name, (v = make(name)));
    }
    return v;
  };
}

/** `make(a, b)`, kept per pair of names (an upstream model and its public name). */
export function pairMemo<T>(make: (a: string, b: string) => T): (a: string, b: string) => T {
  const byA = new Map<string, (b: string) => T>();
  return (a, b) => {
    let forA = byA.get(a);
    if (forA === undefined) {
      if (byA.size >= BOUND) byA.clear();
      byA.set(a, (forA = nameMemo((x) => make(a, x))));
    }
    return forA(b);
  };
}

/** JSON.stringify of a name, kept. */
export const quotedName: (name: string) => string = nameMemo((name) => JSON.stringify(name));
