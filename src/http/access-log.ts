// The access line (one per request) written as a pre-shaped JSON string straight to the logger's stream.
// Same line pino would write for `req.log.info({...}, 'request')` ({"level":30,"time":…,"request_id":…,
// fields…,"msg":"request"}), without pino's generic object walk and redaction hook per request (their cost:
// docs/performance.md, "Hot-path notes"). Secrets are still scrubbed (redactSecrets, as the logger's streamWrite hook
// does, on each value that is not plain ASCII of our own making), and a logger whose stream needs pino's metadata
// (multistream, transports) or has info disabled gets the ordinary call.
import pino, { type Logger } from 'pino';
import { hundredthsText, integerText } from '../contracts/number-text.ts';
import { redactionVersion, redactSecrets } from '../errors/redact.ts';

export interface AccessLine {
  requestId: string;
  method: string;
  path: string;
  status: number;
  latencyMs: number;
  /** The client's address (front/address.ts clientAddress); behind trusted proxies, the one they name. */
  client: string;
  tokenId: string | undefined;
  model: string | null;
  errorCode: string | null;
  upstreamRequestId: string | null;
  /** The upstream's own words on a refusal (operators only; never in the client's answer). */
  upstreamError: string | null;
}

const str = JSON.stringify;
// Characters that need no JSON escaping and cannot start a secret pattern's delimiter.
const PLAIN = /^[\w.:/@+-]*$/;

/**
 * A field whose value came from outside (the path, the model name, the upstream's request id): scrubbed on its
 * own, then quoted. Scrubbing the few outside values instead of the whole finished line gives the same result
 * — no secret pattern spans a `","` — at a fraction of the cost per line (docs/performance.md).
 */
function outside(v: string): string {
  const r = redactSecrets(v);
  return PLAIN.test(r) ? `"${r}"` : str(r);
}

// The path and the model repeat from line to line (route paths, catalogue names): their scrubbed, quoted forms are
// kept, for as long as no new secret is registered. Bounded: a client sending many distinct model names only
// empties it now and then.
const MAX_KNOWN = 512;
const known = new Map<string, string>();
let knownVersion = -1;

function repeated(v: string): string {
  const version = redactionVersion();
  if (version !== knownVersion) {
    known.clear();
    knownVersion = version;
  }
  let q = known.get(v);
  if (q === undefined) {
    q = outside(v);
    if (known.size >= MAX_KNOWN) known.clear();
    known.set(v, q);
  }
  return q;
}

// The epoch-ms field as text, made once per millisecond (several lines share one under load).
let lastMs = -1;
let lastMsText = '';
function nowText(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastMsText = integerText(now);
  }
  return lastMsText;
}

/** A value we made (request id, token id): quoted as is when plain, else scrubbed. */
function ours(v: string): string {
  return plainQuoted(v) ?? outside(v);
}

/** `v` quoted when it is plain (nothing to escape or scrub), else null. */
function plainQuoted(v: string): string | null {
  return PLAIN.test(v) ? `"${v}"` : null;
}

/**
 * ours() of a field whose value tends to repeat from one line to the next (a keep-alive client sends the same token
 * from the same address, request after request): the last plain value's text is kept. A value that is not plain is
 * scrubbed each time (a secret registered since would change its text).
 */
function lastPlain(): (v: string) => string {
  let last: string | undefined;
  let text = '';
  return (v) => {
    if (v === last) return text;
    const q = plainQuoted(v);
    if (q === null) return outside(v);
    last = v;
    text = q;
    return text;
  };
}

/**
 * A request id: newRequestId's form (`req_` and 32 hex digits) is plain by construction, so the test is its length and
 * prefix.
 */
const requestIdText = (v: string): string => (v.length === 36 && v.startsWith('req_') ? `"${v}"` : ours(v));

export function accessLogger(logger: Logger): (a: AccessLine) => void {
  const stream = (logger as unknown as Record<symbol, { write(s: string): unknown } | undefined>)[
    pino.symbols.streamSym
  ];
  const needsMetadata = (stream as Record<symbol, unknown> | undefined)?.[pino.symbols.needsMetadataGsym] === true;
  const sym = logger as unknown as Record<symbol, unknown>;
  // Only when the logger writes pino's default shape (numeric level 30, epoch `time`, `msg`).
  const defaultShape =
    logger.levels.values.info === 30 &&
    sym[pino.symbols.timeSym] === pino.stdTimeFunctions.epochTime &&
    sym[pino.symbols.messageKeySym] === 'msg';
  const direct = stream && !needsMetadata && defaultShape;
  const clientText = lastPlain();
  const tokenText = lastPlain();
  return (a) => {
    if (!logger.isLevelEnabled('info')) return;
    if (!direct) {
      logger.info(
        {
          request_id: a.requestId,
          method: a.method,
          path: a.path,
          status: a.status,
          latency_ms: a.latencyMs,
          client: a.client,
          token_id: a.tokenId,
          model: a.model,
          error_code: a.errorCode ?? undefined,
          upstream_request_id: a.upstreamRequestId ?? undefined,
          upstream_error: a.upstreamError ?? undefined,
        },
        'request',
      );
      return;
    }
    // The method and error code repeat from line to line as well (a handful of values): quoted once (repeated). Token
    // ids
    // and client addresses are many: checked per line (scrubbed when not plain: a forwarded address is the sender's
    // text), so they cannot crowd paths and models out of the bounded cache.
    let s = `{"level":30,"time":${nowText()},"request_id":${requestIdText(a.requestId)},"method":${repeated(a.method)},"path":${repeated(a.path)},"status":${a.status},"latency_ms":${hundredthsText(a.latencyMs)},"client":${clientText(a.client)}`;
    if (a.tokenId !== undefined) s += `,"token_id":${tokenText(a.tokenId)}`;
    s += `,"model":${a.model === null ? 'null' : repeated(a.model)}`;
    if (a.errorCode !== null) s += `,"error_code":${repeated(a.errorCode)}`;
    if (a.upstreamRequestId !== null) s += `,"upstream_request_id":${outside(a.upstreamRequestId)}`;
    if (a.upstreamError !== null) s += `,"upstream_error":${outside(a.upstreamError)}`;
    stream.write(`${s},"msg":"request"}\n`);
  };
}
