// Multipart form fields as the official SDKs' form encoders flatten nested values, rebuilt into one JSON object.
import { GatewayError } from '../errors/gateway-error.ts';
import { isObject, type JsonObject } from '../json/json.ts';

const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Multipart fields arrive flattened the way the SDK's form encoder writes them:
 * `input_reference[image_url]`, `references[video][]` (read as `references[video]` with an array value),
 * `input_reference[]`. Rebuild the nested object so JSON and multipart share one validator.
 */
export function unflattenFields(fields: Record<string, string | string[]>): JsonObject {
  const out: JsonObject = {};
  for (const [rawKey, value] of Object.entries(fields)) {
    const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(rawKey);
    if (!m) continue;
    const path = [m[1]!, ...[...m[2]!.matchAll(/\[([^[\]]*)\]/g)].map((x) => x[1]!)];
    // `__proto__[x]` would walk into Object.prototype and change it for every request the process serves.
    if (path.some((k) => UNSAFE_KEYS.has(k)))
      throw new GatewayError('invalid_parameter', `Field name '${rawKey}' is not allowed`, { param: rawKey });
    setPath(out, path, value);
  }
  return out;
}

function setPath(target: JsonObject, path: string[], value: string | string[]): void {
  let cur: JsonObject = target;
  for (let i = 0; i < path.length - 1; i++) {
    const k = path[i]!;
    const nextKey = path[i + 1]!;
    if (nextKey === '') {
      // `a[][image_url]` (array of objects): one object per value.
      const rest = path.slice(i + 2);
      const values = Array.isArray(value) ? value : [value];
      const arr: unknown[] = [];
      for (const v of values) {
        if (rest.length === 0) arr.push(v);
        else {
          const o: JsonObject = {};
          setPath(o, rest, v);
          arr.push(o);
        }
      }
      cur[k] = arr;
      return;
    }
    const existing = cur[k];
    if (!isObject(existing)) cur[k] = {};
    cur = cur[k] as JsonObject;
  }
  cur[path[path.length - 1]!] = value;
}

/** Multipart numbers are strings by nature: accept a plain decimal string there, nothing else. */
