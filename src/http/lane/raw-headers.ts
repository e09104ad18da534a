// The few request headers the text lane reads before a route runs, taken straight from node's raw header list.
// Reading `req.headers` makes node build an object of every header the client sent (SDKs send a dozen or more);
// the lane needs eight, and a route that wants the rest still gets `req.headers` (built then, on first use).
// Same answers as node's object: for Authorization, Content-Type and Content-Length the first value counts (node
// drops later duplicates of these), x-api-key, Transfer-Encoding and X-Forwarded-For repeated are joined with ", "
// (as node does).

export interface LaneHeaders {
  authorization: string | undefined;
  apiKey: string | undefined;
  contentLength: string | undefined;
  contentType: string | undefined;
  transferEncoding: string | undefined;
  /** A browser's Origin (the CORS rules, cors.ts). */
  origin: string | undefined;
  /** X-Forwarded-For, repeated ones joined (read by front/address.ts clientAddress only behind trusted proxies). */
  forwardedFor: string | undefined;
  /** Whether a Host header came (HTTP/1.1 requires one: client-error.ts lacksHost). */
  host: boolean;
}

/** Is `name` equal to `lower` (all lower-case ASCII) ignoring case? */
function named(name: string, lower: string): boolean {
  if (name === lower) return true;
  for (let i = 0; i < lower.length; i++) {
    const c = name.charCodeAt(i);
    // An upper-case ASCII letter compares as its lower-case form; anything else as it is.
    if ((c >= 65 && c <= 90 ? c | 0x20 : c) !== lower.charCodeAt(i)) return false;
  }
  return true;
}

const joined = (prev: string | undefined, v: string): string => (prev === undefined ? v : `${prev}, ${v}`);

/**
 * How many raw entries (names and values) node turns into `req.headers` when the server sets no `maxHeadersCount`:
 * 1000 headers. `rawHeaders` can hold more; node ignores the rest, and so must the lane.
 */
export const NODE_HEADER_ENTRIES = 2000;

/** One pass over `rawHeaders` ([name, value, name, value, …]), within the entries node reads (`limit`). */
export function laneHeaders(raw: readonly string[], limit = NODE_HEADER_ENTRIES): LaneHeaders {
  const h: LaneHeaders = {
    authorization: undefined,
    apiKey: undefined,
    contentLength: undefined,
    contentType: undefined,
    transferEncoding: undefined,
    origin: undefined,
    forwardedFor: undefined,
    host: false,
  };
  const end = Math.min(raw.length, limit);
  for (let i = 0; i + 1 < end; i += 2) {
    const n = raw[i]!;
    const v = raw[i + 1]!;
    switch (n.length) {
      case 13:
        if (h.authorization === undefined && named(n, 'authorization')) h.authorization = v;
        break;
      case 9:
        if (named(n, 'x-api-key')) h.apiKey = joined(h.apiKey, v);
        break;
      case 14:
        if (h.contentLength === undefined && named(n, 'content-length')) h.contentLength = v;
        break;
      case 12:
        if (h.contentType === undefined && named(n, 'content-type')) h.contentType = v;
        break;
      case 17:
        if (named(n, 'transfer-encoding')) h.transferEncoding = joined(h.transferEncoding, v);
        break;
      case 6:
        if (h.origin === undefined && named(n, 'origin')) h.origin = v;
        break;
      case 15:
        if (named(n, 'x-forwarded-for')) h.forwardedFor = joined(h.forwardedFor, v);
        break;
      case 4:
        if (named(n, 'host')) h.host = true;
        break;
    }
  }
  return h;
}
