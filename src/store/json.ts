/** Parse a JSON text column; upstream/stored JSON is `unknown` until checked. */
export function parseJson<T = unknown>(text: string | null | undefined): T | null {
  if (text === null || text === undefined) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}

/**
 * The JSON text of a value stored in a text column (null for none): exactly what JSON.stringify writes. Every request
 * stores a few small flat values — a charge's quantities, the usage, the upstream attempts — and a JSON.stringify
 * call has a fixed cost larger than such a value's whole text (docs/performance.md). A plain object of numbers,
 * booleans, nulls and plain strings, or an array of such objects, is written here instead; anything else goes to
 * JSON.stringify.
 */
export function jsonText(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  return (Array.isArray(v) ? flatList(v) : flatObject(v)) ?? JSON.stringify(v);
}

// Text JSON.stringify writes as it is between quotes: printable ASCII without `"` and `\` (it escapes those, control
// characters and lone surrogates; other characters are left to it).
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

function flatList(list: unknown[]): string | undefined {
  let s = '[';
  for (let i = 0; i < list.length; i++) {
    // A hole or an undefined element is `null` in JSON.stringify's text: left to it, as is every non-object.
    const o = flatObject(list[i]);
    if (o === undefined) return undefined;
    s += i === 0 ? o : `,${o}`;
  }
  return `${s}]`;
}

function flatObject(v: unknown): string | undefined {
  // Only plain objects: a class instance or a Date may have toJSON, and a proxy or a getter is not ours to walk.
  if (typeof v !== 'object' || v === null || Object.getPrototypeOf(v) !== Object.prototype) return undefined;
  const o = v as Record<string, unknown>;
  let s = '{';
  // for…in on a plain object walks its own enumerable string keys in JSON.stringify's order (Object.prototype has
  // none: a key it would add is not an own key, and is refused).
  for (const k in o) {
    if (!Object.hasOwn(o, k) || !PLAIN.test(k)) return undefined;
    const x = o[k];
    let t: string;
    if (typeof x === 'number') {
      if (!Number.isFinite(x)) return undefined;
      t = String(x);
    } else if (typeof x === 'string') {
      if (!PLAIN.test(x)) return undefined;
      t = `"${x}"`;
    } else if (x === null) t = 'null';
    else if (typeof x === 'boolean') t = x ? 'true' : 'false';
    else if (x === undefined) continue; // JSON.stringify leaves the member out
    else return undefined;
    s += s.length === 1 ? `"${k}":${t}` : `,"${k}":${t}`;
  }
  return `${s}}`;
}
