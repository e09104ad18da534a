// The client's own JSON text, sent upstream with one top-level string member replaced (the model name), instead of
// serialising the parsed body again (a JSON.stringify of the whole body on every call).
//
// It must send exactly what was validated. JSON.parse keeps the last of two equal keys; an upstream parser that
// keeps the first would act on a member the gateway never saw (an image URL, say). So the splice is refused when
// the text holds any repeated key, at any depth: the scan counts every key in the text, the parsed value's keys are
// counted too, and the two agree only when no key was dropped by JSON.parse. It is also refused when the member
// is not written plainly at the top level (an escaped key name, a non-string value); the caller serialises then.
import type { JsonObject } from '../json/json.ts';
import { stringEnd } from '../json/json-text.ts';
import { quotedName } from '../json/name-memo.ts';
import type { TextRequest } from './types.ts';

/** The client's body with the upstream model name: its own text, spliced, when that is safe; else serialised. */
export function bodyWithModel(req: Pick<TextRequest, 'raw' | 'body' | 'upstreamModel'>): string {
  if (req.raw !== undefined) {
    const spliced = spliceTopLevelString(req.raw, req.body, 'model', req.upstreamModel);
    if (spliced !== null) return spliced;
  }
  return JSON.stringify({ ...req.body, model: req.upstreamModel });
}

/**
 * `raw` with the value of the top-level member `key` (a string) replaced by `value`, or null when that cannot be
 * shown to carry exactly `parsed` plus the new value. `parsed` must be what `raw` parsed to, unchanged since.
 */
export function spliceTopLevelString(raw: string, parsed: JsonObject, key: string, value: string): string | null {
  const scan = scanKeys(raw, key);
  if (scan === null || scan.valueStart < 0) return null;
  if (scan.keys !== countKeys(parsed)) return null;
  return raw.slice(0, scan.valueStart) + quotedName(value) + raw.slice(scan.valueEnd);
}

/**
 * A JSON object's text with one more member (`"key":value`, written) at its end. The object is known to have a
 * member already (a splice found one), so a comma goes before it; only whitespace can follow the closing brace.
 */
export function withMemberAppended(objectText: string, member: string): string {
  const close = objectText.lastIndexOf('}');
  return `${objectText.slice(0, close)},${member}${objectText.slice(close)}`;
}

interface KeyScan {
  /** Every object key in the text, repeats included. */
  keys: number;
  /**
   * Where the top-level member's string value starts (its opening quote) and ends (after its closing quote); -1 when
   * absent.
   */
  valueStart: number;
  valueEnd: number;
}

/**
 * Walk JSON text that JSON.parse accepted: string tokens are skipped with indexOf, so long strings (data URIs)
 * cost little. A string followed by optional whitespace and a colon is a key. Null when the text does not start
 * with an object, or the top-level key appears twice as written.
 */
function scanKeys(raw: string, key: string): KeyScan | null {
  let i = skipSpace(raw, 0);
  if (raw.charCodeAt(i) !== 123 /* { */) return null;
  let depth = 0;
  let keys = 0;
  let valueStart = -1;
  let valueEnd = -1;
  for (const n = raw.length; i < n; i++) {
    const c = raw.charCodeAt(i);
    if (c === 34 /* " */) {
      const end = stringEnd(raw, i);
      if (end < 0) return null;
      const colon = skipSpace(raw, end + 1);
      if (raw.charCodeAt(colon) !== 58 /* : */) {
        i = end;
        continue;
      }
      keys++;
      // The key's text between its quotes is exactly `key` (an escaped spelling is not matched: no splice then).
      if (depth === 1 && end - i - 1 === key.length && raw.startsWith(key, i + 1)) {
        if (valueStart >= 0) return null;
        const v = skipSpace(raw, colon + 1);
        if (raw.charCodeAt(v) !== 34) return null;
        const vEnd = stringEnd(raw, v);
        if (vEnd < 0) return null;
        valueStart = v;
        valueEnd = vEnd + 1;
        i = vEnd;
      } else {
        i = colon;
      }
      continue;
    }
    if (c === 123 || c === 91 /* [ */) depth++;
    else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return { keys, valueStart, valueEnd };
}

function skipSpace(raw: string, i: number): number {
  for (;;) {
    const c = raw.charCodeAt(i);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return i;
    i++;
  }
}

/**
 * Keys of every object in a parsed JSON value. `for…in` allocates no key list; it would also count an enumerable
 * property inherited from a polluted Object.prototype, which can only make the counts differ (no splice).
 */
function countKeys(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 0;
  let n = 0;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) n += countKeys(v[i]);
    return n;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) n += 1 + countKeys(o[k]);
  return n;
}
