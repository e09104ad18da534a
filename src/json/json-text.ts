// Small scans over JSON text (text that JSON.parse accepts or is about to be given), shared by the body parser
// and the upstream splice; and the JSON text of the small values stored with every request, written directly.

/** The index of the quote closing the string that opens at `open`; -1 if none. */
export function stringEnd(text: string, open: number): number {
  let q = text.indexOf('"', open + 1);
  while (q >= 0) {
    let slashes = 0;
    while (text.charCodeAt(q - 1 - slashes) === 92 /* \ */) slashes++;
    if ((slashes & 1) === 0) return q;
    q = text.indexOf('"', q + 1);
  }
  return -1;
}

/** Does `text[from, to)` hold no backslash and no control character (a JSON string's text that needs no unescaping)? */
export function isPlainSpan(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 92 /* \ */ || c < 32) return false;
  }
  return true;
}

/**
 * `text.slice(from, to)` as a string of its own. V8 may make a slice of a long string a view into it, which keeps the
 * whole of `text` alive for as long as the slice lives; slicing a concatenation flattens it first, into a new string
 * that holds only the concatenation's characters.
 */
export const detachedSlice = (text: string, from: number, to: number): string => `"${text.slice(from, to)}`.slice(1);

/**
 * Does the JSON text nest arrays and objects deeper than `max`? Each level is an opening bracket, so a text of at
 * most `max` characters cannot. Most bodies hold fewer than `max` opening brackets in all, which settles it with a
 * few substring searches; otherwise one pass that skips strings (brackets inside strings do not nest) measures the
 * depth.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let openers = 0;
  for (let i = text.indexOf('{'); i >= 0 && openers <= max; i = text.indexOf('{', i + 1)) openers++;
  for (let i = text.indexOf('['); i >= 0 && openers <= max; i = text.indexOf('[', i + 1)) openers++;
  if (openers <= max) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      const end = stringEnd(text, i);
      if (end < 0) return false; // not JSON: the parser says so
      i = end;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) return true;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
    }
  }
  return false;
}

/**
 * Does the JSON text hold more than `max` object members? A member is at least four characters (`"":0`), so a text
 * of at most 4 × `max` cannot. Each member has one `:` outside strings: a longer body with at most `max` colons in
 * all is settled by substring searches; otherwise one pass that skips strings counts them.
 */
export function hasMoreMembersThan(text: string, max: number): boolean {
  if (text.length <= 4 * max) return false;
  let colons = 0;
  for (let i = text.indexOf(':'); i >= 0 && colons <= max; i = text.indexOf(':', i + 1)) colons++;
  if (colons <= max) return false;
  let members = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      const end = stringEnd(text, i);
      if (end < 0) return false; // not JSON: the parser says so
      i = end;
    } else if (c === 58 /* : */ && ++members > max) {
      return true;
    }
  }
  return false;
}

// Text JSON.stringify writes as it is between quotes: printable ASCII without `"` and `\` (it escapes those, control
// characters and lone surrogates; other characters are left to it).
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

// The keys and string values met so far that PLAIN accepts: a stored value's keys are the same few names on every
// request, its strings mostly the same few (channel ids, outcomes, error codes), and a set lookup costs less than the
// regular expression. Each set is bounded: past the limit, the others are tested each time.
const MAX_PLAIN = 256;
const plainIn =
  (known: Set<string>) =>
  (t: string): boolean => {
    if (known.has(t)) return true;
    if (!PLAIN.test(t)) return false;
    if (known.size < MAX_PLAIN) known.add(t);
    return true;
  };
const plainKey = plainIn(new Set());
const plainValue = plainIn(new Set());

/** No enumerable property on Object.prototype: for…in over a plain object then walks its own keys only. */
function prototypeClean(): boolean {
  for (const _ in Object.prototype) return false;
  return true;
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

// A frozen value (a price tier's unit prices: pricing/prices.ts) cannot change, so its JSON is built once.
const frozenJson = new WeakMap<object, string>();

/** jsonText, kept per frozen object: the same text, built once for a value every charge of a price tier shares. */
export function jsonTextOnce(v: unknown): string | null {
  if (typeof v !== 'object' || v === null || !Object.isFrozen(v)) return jsonText(v);
  let s = frozenJson.get(v);
  if (s === undefined) frozenJson.set(v, (s = jsonText(v) ?? 'null'));
  return s;
}

// JSON.stringify calls a toJSON method wherever it finds one, own (enumerable or not) or inherited: such a value is
// left to it.
const hasToJson = (v: object): boolean => (v as { toJSON?: unknown }).toJSON !== undefined;

function flatList(list: unknown[]): string | undefined {
  if (hasToJson(list)) return undefined;
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
  // Only plain objects (not a class instance, a Date, a Map…), and none with a toJSON method.
  if (typeof v !== 'object' || v === null || Object.getPrototypeOf(v) !== Object.prototype || hasToJson(v))
    return undefined;
  // for…in on a plain object walks its own enumerable string keys in JSON.stringify's order, then those of
  // Object.prototype, which must have none (a polluted prototype: left to JSON.stringify, which skips them).
  if (!prototypeClean()) return undefined;
  const o = v as Record<string, unknown>;
  let s = '{';
  for (const k in o) {
    if (!plainKey(k)) return undefined;
    const x = o[k];
    let t: string;
    if (typeof x === 'number') {
      if (!Number.isFinite(x)) return undefined;
      t = String(x);
    } else if (typeof x === 'string') {
      if (!plainValue(x)) return undefined;
      t = `"${x}"`;
    } else if (x === null) t = 'null';
    else if (typeof x === 'boolean') t = x ? 'true' : 'false';
    else if (x === undefined)
      continue; // JSON.stringify leaves the member out
    else return undefined;
    s += s.length === 1 ? `"${k}":${t}` : `,"${k}":${t}`;
  }
  return `${s}}`;
}
