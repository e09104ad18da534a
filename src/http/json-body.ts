// Request bodies as JSON: one parser for the text lane and Fastify's routes, with the same refusals.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config.ts';
import sjson from 'secure-json-parse';
import { hasMoreValuesThan, textOutsideMedia } from '../json/json-size.ts';
import { hasMoreMembersThan, nestsDeeperThan } from '../json/json-text.ts';
import { GatewayError, isGatewayError } from '../errors/gateway-error.ts';
import { textLimitOf } from './front/body-limits.ts';

/**
 * Deepest nesting of arrays and objects a body may have. JSON.parse itself nests arbitrarily deep, but serialising
 * or walking such a value again (JSON.stringify, the validators, the usage estimate) overflows the stack: a body
 * 10,000 levels deep was a 500. No API request here comes near this.
 */
export const MAX_JSON_DEPTH = 256;

/**
 * Most object members (keys, counted over every object) a body may hold. Parsing is linear in them, but an object
 * of a million keys makes JSON.parse build a dictionary for seconds while every other request waits. Tool schemas
 * and message lists come nowhere near this.
 */
export const MAX_JSON_MEMBERS = 50_000;

/**
 * Most values inside arrays and objects a body may hold (json-size.ts hasMoreValuesThan). A body of millions of
 * empty objects, short arrays or zeros has no keys, yet JSON.parse and every walk after it take seconds of the
 * event loop. A message list or a tool schema holds a few thousand.
 */
export const MAX_JSON_VALUES = 500_000;

/**
 * JSON.parse, refusing prototype poisoning as Fastify's default parser does (secure-json-parse: a `__proto__` key,
 * or a `constructor` key holding `prototype`) and nesting deeper than MAX_JSON_DEPTH. secure-json-parse runs two
 * regular expressions over every body to decide whether to look. Both keys it refuses contain "proto" (`__proto__`,
 * and `prototype` under `constructor`), so a body with no "proto", no `\u` escape that could spell it and no BOM
 * (which secure-json-parse strips) is parsed directly. A body of more than MAX_JSON_MEMBERS keys or MAX_JSON_VALUES
 * values, or with more than `textLimit` characters outside inline media (front/body-limits.ts textLimitOf; 413), is
 * refused unparsed. Throws a SyntaxError for text that is not JSON, and invalid_request for a body that is JSON but
 * uses a refused key.
 */
export function parseJsonBody(text: string, textLimit = Number.POSITIVE_INFINITY): unknown {
  // Checked before parsing: the parse of one object with a million keys held the event loop for seconds, as did
  // millions of values without keys.
  if (text.length > textLimit && textOutsideMedia(text) > textLimit) {
    throw new GatewayError(
      'payload_too_large',
      `The request body's text outside inline media is over ${textLimit} characters`,
    );
  }
  if (hasMoreMembersThan(text, MAX_JSON_MEMBERS)) {
    throw new GatewayError(
      'invalid_request',
      `The request body holds more than ${MAX_JSON_MEMBERS} object members (keys)`,
    );
  }
  if (hasMoreValuesThan(text, MAX_JSON_VALUES)) {
    throw new GatewayError(
      'invalid_request',
      `The request body holds more than ${MAX_JSON_VALUES} values in arrays and objects`,
    );
  }
  const escapes = text.includes('\\u');
  const value: unknown =
    escapes || text.includes('proto') || text.charCodeAt(0) === 0xfeff ? parsePoisonChecked(text) : JSON.parse(text);
  if (typeof value === 'object' && value !== null && nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new GatewayError(
      'invalid_request',
      `The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`,
    );
  }
  // A NUL can only arrive escaped (a raw control character is not JSON). PostgreSQL refuses one in text (an id
  // looked up, a name stored, a row that would be set aside unwritten): no string in a body may hold one.
  if (escapes && text.includes('\\u0000') && holdsNul(value)) {
    throw new GatewayError(
      'invalid_request',
      'Strings in the request body may not contain the NUL character (\\u0000)',
    );
  }
  return value;
}

/** secure-json-parse's refusal of a prototype key, as the request's own fault (the text itself may be valid JSON). */
function parsePoisonChecked(text: string): unknown {
  try {
    return sjson.parse(text, null, { protoAction: 'error', constructorAction: 'error' });
  } catch (e) {
    // Its only refusal of valid JSON; anything else it throws is JSON.parse's SyntaxError (invalid_json).
    if (e instanceof SyntaxError && e.message === 'Object contains forbidden prototype property') {
      throw new GatewayError(
        'invalid_request',
        'The request body may not use the keys "__proto__" or "constructor" holding "prototype"',
      );
    }
    throw e;
  }
}

/** Does any string (key or value) in a parsed JSON value contain U+0000? (The value nests at most MAX_JSON_DEPTH.) */
function holdsNul(v: unknown): boolean {
  if (typeof v === 'string') return v.includes('\0');
  if (typeof v !== 'object' || v === null) return false;
  if (Array.isArray(v)) return v.some(holdsNul);
  for (const [k, x] of Object.entries(v)) if (k.includes('\0') || holdsNul(x)) return true;
  return false;
}

/**
 * What a zero-length `application/json` body is: `refuse` — not JSON (400 invalid_json; the API families, as their
 * upstreams answer); `absent` — no body at all, as if none had been sent (the admin API: an action whose body is
 * all optional, such as a rotation, takes its defaults; one that needs a body says so).
 */
export type EmptyJsonBody = 'refuse' | 'absent';

/** The refusal of a body that is not JSON: its one wording, whichever front read the body. */
export const notJson = (): GatewayError => new GatewayError('invalid_json', 'Request body is not valid JSON');

/**
 * A JSON request body's text as its value — the one reader for both fronts (the text lane, and Fastify's parser
 * below): an empty text as `empty` says, parseJsonBody's refusals, anything else that is not JSON refused as such.
 */
export function readJsonBody(text: string, empty: EmptyJsonBody, textLimit: number): unknown {
  if (text === '') {
    if (empty === 'absent') return undefined;
    throw notJson();
  }
  try {
    return parseJsonBody(text, textLimit);
  } catch (e) {
    throw isGatewayError(e) ? e : notJson();
  }
}

/**
 * Fastify's `application/json` parser for `scope` and the scopes registered under it: readJsonBody, with the text
 * limit of the route's body class.
 */
export function useJsonBodyParser(
  scope: FastifyInstance,
  empty: EmptyJsonBody,
  config: Pick<Config, 'bodyLimit'>,
): void {
  if (scope.hasContentTypeParser('application/json')) scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const row = req.routeOptions.config?.row;
    let value: unknown;
    try {
      value = readJsonBody(String(body), empty, row ? textLimitOf(row.body, config) : Number.POSITIVE_INFINITY);
    } catch (e) {
      return done(e as GatewayError, undefined);
    }
    done(null, value);
  });
}
