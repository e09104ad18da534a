// The first gate of every admin body: its TypeBox schema (the same object the OpenAPI document shows), checked by the
// compiled checker. A refusal names the top-level field it is about, in the words the hand-written readers used
// (`quota must be an integer between 0 and …`); the semantic rules JSON Schema cannot say run after it.
import { Kind, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';
import { GatewayError } from '../../../errors/gateway-error.ts';

type Shape = Record<string, unknown> & { [Kind]?: string };

const fmtList = (values: unknown[]) => values.map((v) => String(v)).join(', ');

/** ` between 0 and 10`, ` of at least 1`, ` above 0 (at most 1000)`, or nothing. */
function rangeWords(s: Shape): string {
  const min = typeof s.minimum === 'number' ? s.minimum : undefined;
  const max = typeof s.maximum === 'number' ? s.maximum : undefined;
  const upTo = max !== undefined ? ` (at most ${max})` : '';
  if (typeof s.exclusiveMinimum === 'number') return ` above ${s.exclusiveMinimum}${upTo}`;
  if (min !== undefined && max !== undefined) return ` between ${min} and ${max}`;
  if (min !== undefined) return ` of at least ${min}`;
  return max !== undefined ? ` of at most ${max}` : '';
}

/** The words after "<field> must be …" for a schema, from its JSON Schema keywords. */
export function expected(s: Shape): string {
  if (Array.isArray(s.anyOf)) {
    const parts = s.anyOf as Shape[];
    const nonNull = parts.filter((p) => p.type !== 'null');
    const orNull = nonNull.length < parts.length ? ' or null' : '';
    if (nonNull.length > 0 && nonNull.every((p) => 'const' in p))
      return `one of ${fmtList(nonNull.map((p) => p.const))}${orNull}`;
    return `${nonNull.map((p) => expected(p)).join(', or ')}${orNull}`;
  }
  if ('const' in s) return `${String(s.const)}`;
  if (Array.isArray(s.enum)) return `one of ${fmtList(s.enum)}`;
  const range = rangeWords(s);
  switch (s.type) {
    case 'integer':
      return `an integer${range}`;
    case 'number':
      return `a number${range}`;
    case 'boolean':
      return 'true or false';
    case 'string': {
      const len = typeof s.maxLength === 'number' ? ` of at most ${s.maxLength} characters` : '';
      return typeof s.minLength === 'number' && s.minLength > 0 ? `a non-empty string${len}` : `a string${len}`;
    }
    case 'array': {
      const items = s.items as Shape | undefined;
      const words = items ? expected(items) : '';
      const of = !items ? '' : words.startsWith('one of ') ? ` of: ${words.slice(7)}` : ` of ${plural(words)}`;
      const few = typeof s.minItems === 'number' && s.minItems > 0 ? 'a non-empty array' : 'an array';
      const cap = typeof s.maxItems === 'number' ? ` (at most ${s.maxItems})` : '';
      return `${few}${of}${cap}`;
    }
    case 'object':
      return 'an object';
    default:
      return 'a valid value';
  }
}

const plural = (words: string) =>
  words.replace(/^an? (integer|number|string|object|non-empty string)/, '$1s').replace(/^true or false$/, 'booleans');

/** The property schema a JSON pointer's first segment names, when the body schema lists it. */
function propertyOf(root: Shape, key: string): Shape | undefined {
  const props = root.properties as Record<string, Shape> | undefined;
  return props?.[key];
}

const unpointer = (seg: string) => seg.replace(/~1/g, '/').replace(/~0/g, '~');

/**
 * The refusal for the checker's first error, naming its field. `dotted`: top-level fields whose inner refusals name
 * the inner field (`cost.per_unit`, param and words), as their readers did.
 */
export function refusal(root: TSchema, e: ValueError, dotted: readonly string[] = []): GatewayError {
  const segs = e.path.split('/').slice(1).map(unpointer);
  if (segs.length === 0) return new GatewayError('invalid_request', 'Request body must be a JSON object');
  const key = segs[0]!;
  // `budgets period`, as the hand-written readers named a field inside a list's item.
  const path = segs.filter((s) => !/^\d+$/.test(s)).join(' ');
  const r = root as Shape;
  if (segs.length === 2 && dotted.includes(key)) return dottedRefusal(e, `${key}.${segs[1]}`);
  if (segs.length === 1 && e.type === ValueErrorType.ObjectAdditionalProperties) {
    const allowed = Object.keys((r.properties as object | undefined) ?? {});
    return new GatewayError('invalid_parameter', `Unknown field: ${key} (allowed: ${allowed.join(', ')})`, {
      param: key,
    });
  }
  if (e.type === ValueErrorType.ObjectRequiredProperty)
    return new GatewayError('missing_parameter', `${path} is required`, { param: key });
  // The top-level property's words (a union's, not a branch's; an array's of scalars, not an item's); inside an
  // object, the words at the failing point.
  const top = propertyOf(r, key);
  const list = Array.isArray(top?.anyOf) ? (top.anyOf as Shape[]).find((b) => b.type === 'array') : top;
  const scalars = list?.type === 'array' && (list.items as Shape | undefined)?.type !== 'object' && segs.length === 2;
  const named = segs.length === 1 || scalars;
  const s = named ? (top ?? (e.schema as Shape)) : (e.schema as Shape);
  const where = named ? key : path;
  const extra = e.type === ValueErrorType.ObjectAdditionalProperties ? `${path} is not a known field` : null;
  return new GatewayError('invalid_parameter', extra ?? `${where} must be ${expected(s)}`, { param: key });
}

/** A refusal inside a dotted field: `cost.per_hour is not a known field`, `cost.per_unit must be …`. */
function dottedRefusal(e: ValueError, at: string): GatewayError {
  const words =
    e.type === ValueErrorType.ObjectAdditionalProperties
      ? `${at} is not a known field`
      : `${at} must be ${expected(e.schema as Shape)}`;
  return new GatewayError('invalid_parameter', words, { param: at });
}

/** A value refused by a nullable field's union: the error inside its one other branch (an item's field, not the list). */
function deeper(e: ValueError): ValueError {
  const s = e.schema as Shape;
  if (e.type !== ValueErrorType.Union || e.value === null || !Array.isArray(s.anyOf)) return e;
  const branches = (s.anyOf as TSchema[]).filter((b) => (b as Shape).type !== 'null');
  if (branches.length !== 1) return e;
  const inner = Value.Errors(branches[0]!, e.value).First();
  return inner ? { ...inner, path: `${e.path}${inner.path}` } : e;
}

export interface BodyCheck<T extends TSchema> {
  /** The schema the OpenAPI document shows for this body (the very object checked). */
  readonly schema: T;
  /** The body, typed by its schema, or a 400 naming the first field it refuses. */
  (body: unknown): Static<T>;
}

/** A compiled checker for one admin body schema (`dotted`: see refusal). */
export function bodyCheck<T extends TSchema>(schema: T, opts: { dotted?: readonly string[] } = {}): BodyCheck<T> {
  let compiled: TypeCheck<T> | undefined;
  const check = (body: unknown): Static<T> => {
    compiled ??= TypeCompiler.Compile(schema);
    if (compiled.Check(body)) return body;
    const first = compiled.Errors(body).First();
    throw first
      ? refusal(schema, deeper(first), opts.dotted)
      : new GatewayError('invalid_request', 'Request body is not valid');
  };
  return Object.assign(check, { schema });
}
