// Small typed readers for request fields: each returns the value or throws a catalogue error naming the field.
import { GatewayError } from '../errors/gateway-error.ts';
import type { ErrorCode } from '../errors/codes.ts';
import { isObject, type JsonObject } from '../json/json.ts';

export function requireBody(body: unknown): JsonObject {
  if (!isObject(body)) throw new GatewayError('invalid_request', 'Request body must be a JSON object');
  return body;
}

/** `name`: a name people read (accounts, tokens, channels), which may not carry bidirectional controls. */
export interface StringOptions {
  max?: number;
  code?: ErrorCode;
  name?: boolean;
}

/**
 * Bidirectional embedding, override and isolate controls (U+202A–U+202E, U+2066–U+2069): they reorder the text shown
 * after them.
 */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/;

export function optString(o: JsonObject, key: string, opts: StringOptions = {}): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string')
    throw new GatewayError(opts.code ?? 'invalid_parameter', `${key} must be a string`, { param: key });
  if (opts.max !== undefined && v.length > opts.max) {
    throw new GatewayError(opts.code ?? 'invalid_parameter', `${key} must be at most ${opts.max} characters`, {
      param: key,
    });
  }
  if (opts.name && BIDI_CONTROLS.test(v)) {
    throw new GatewayError(
      opts.code ?? 'invalid_parameter',
      `${key} must not contain bidirectional control characters (U+202A–U+202E, U+2066–U+2069)`,
      {
        param: key,
      },
    );
  }
  return v;
}

export function reqString(o: JsonObject, key: string, opts: StringOptions = {}): string {
  const v = optString(o, key, opts);
  if (v === undefined || v.trim() === '')
    throw new GatewayError('missing_parameter', `${key} is required`, { param: key });
  return v;
}

export function optInt(
  o: JsonObject,
  key: string,
  min: number,
  max: number,
  code: ErrorCode = 'invalid_parameter',
): number | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new GatewayError(code, `${key} must be an integer between ${min} and ${max}`, { param: key });
  }
  return v;
}

export function optStringArray(o: JsonObject, key: string, opts: { maxItems?: number } = {}): string[] | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) {
    throw new GatewayError('invalid_parameter', `${key} must be an array of strings`, { param: key });
  }
  if (opts.maxItems !== undefined && v.length > opts.maxItems) {
    throw new GatewayError('invalid_parameter', `${key} must have at most ${opts.maxItems} items`, { param: key });
  }
  return v as string[];
}

export function optEnum<T extends string>(
  o: JsonObject,
  key: string,
  values: readonly T[],
  code: ErrorCode = 'invalid_parameter',
): T | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) {
    throw new GatewayError(code, `${key} must be one of ${values.join(', ')}`, { param: key });
  }
  return v as T;
}

/** Refuse any field outside `allowed` (an edit that silently ignored a misspelt field would look applied). */
export function onlyFields(o: JsonObject, allowed: readonly string[]): void {
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k))
      throw new GatewayError('invalid_parameter', `Unknown field: ${k} (allowed: ${allowed.join(', ')})`, { param: k });
  }
}

/** For an edit: undefined when absent, null when sent as null (remove the value), else an integer in range. */
export function patchInt(o: JsonObject, key: string, min: number, max: number): number | null | undefined {
  if (!(key in o)) return undefined;
  if (o[key] === null) return null;
  return optInt(o, key, min, max);
}
