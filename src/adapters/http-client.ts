// One undici Pool per upstream origin (keep-alive), with connect/header/body timeouts.
// Network failures become GatewayErrors here, so adapters only deal with HTTP answers.
import { Pool, errors as undiciErrors, type Dispatcher } from 'undici';
import { GatewayError } from '../errors/gateway-error.ts';
import { AbortLink, type CallSignal } from './abort-link.ts';
import { DeadlineSweep, type Deadline } from './deadlines.ts';
import { dispatchStream, type UpstreamStreamResponse } from './http-stream.ts';
import {
  asDispatchHandler,
  connected,
  parseRawHeaders,
  rawHeader,
  released,
  type ParsedHeaders,
  type RawDispatchHandler,
} from './raw-dispatch.ts';

export interface UpstreamTimeouts {
  connectMs: number;
  /** Time to response headers (first byte). */
  headersMs: number;
  /** Max idle time between body chunks (streams). */
  bodyIdleMs: number;
}

export const DEFAULT_TIMEOUTS: UpstreamTimeouts = { connectMs: 5_000, headersMs: 120_000, bodyIdleMs: 60_000 };

export interface UpstreamRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** Absolute base URL of the channel (scheme://host[:port][/prefix]). */
  baseUrl: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer | null;
  signal?: CallSignal;
  timeouts?: Partial<UpstreamTimeouts>;
}

export type UpstreamResponse = Dispatcher.ResponseData;

/** A whole upstream answer as text (see UpstreamClient.requestText). */
export interface UpstreamTextResponse {
  statusCode: number;
  /** All headers (names lower-cased; a repeated header is an array), built on first use. */
  readonly headers: Dispatcher.ResponseData['headers'];
  /** The first value of one header (`name` lower-case), without building the headers object. */
  header(name: string): string | null;
  text: string;
}

class TextAnswer implements UpstreamTextResponse {
  private parsed: ParsedHeaders | null = null;

  constructor(
    readonly statusCode: number,
    private readonly raw: Buffer[],
    readonly text: string,
  ) {}

  get headers(): ParsedHeaders {
    return (this.parsed ??= parseRawHeaders(this.raw));
  }

  header(name: string): string | null {
    return rawHeader(this.raw, name);
  }
}

/**
 * One answer read whole: the dispatch handler and everything the call keeps, in one object (not a handler of
 * closures over a shared scope: fewer objects alive while the upstream answers).
 */
class TextCall implements RawDispatchHandler {
  private statusCode = 0;
  private raw: Buffer[] = [];
  private chunks: Buffer[] = [];

  constructor(
    private resolve: ((a: UpstreamTextResponse) => void) | null,
    private reject: ((e: unknown) => void) | null,
    private readonly deadline: Deadline,
    private readonly link: AbortLink | null,
  ) {}

  onConnect(abort: (reason?: Error) => void): void {
    connected(abort, this.deadline, this.link);
  }

  onHeaders(status: number, rawHeaders: Buffer[]): boolean {
    this.deadline.progressed();
    this.statusCode = status;
    this.raw = rawHeaders;
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.deadline.progressed();
    this.chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    const resolve = this.resolve;
    this.settle();
    const c = this.chunks;
    resolve?.(
      new TextAnswer(
        this.statusCode,
        this.raw,
        c.length === 1 ? c[0]!.toString('utf8') : Buffer.concat(c).toString('utf8'),
      ),
    );
  }

  onError(e: Error): void {
    const reject = this.reject;
    this.settle();
    reject?.(networkError(e));
  }

  /** Once: the deadline and the abort link let go, and a late callback finds nothing to settle. */
  private settle(): void {
    this.resolve = null;
    this.reject = null;
    released(this.deadline, this.link);
  }
}

export class UpstreamClient {
  private readonly pools = new Map<string, Pool>();
  /** The time limits of requestText/requestStream calls (undici's own per-request timers are off for them). */
  private readonly deadlines = new DeadlineSweep();

  constructor(private readonly defaults: UpstreamTimeouts = DEFAULT_TIMEOUTS) {}

  private pool(origin: string, t: UpstreamTimeouts): Pool {
    let p = this.pools.get(origin);
    if (!p) {
      p = new Pool(origin, {
        connections: 256,
        pipelining: 1,
        keepAliveTimeout: 30_000,
        connect: { timeout: t.connectMs },
        headersTimeout: t.headersMs,
        bodyTimeout: t.bodyIdleMs,
      });
      this.pools.set(origin, p);
    }
    return p;
  }

  /** Channel base URLs parsed once, not per request. */
  private readonly bases = new Map<string, { origin: string; prefix: string }>();

  private base(baseUrl: string): { origin: string; prefix: string } {
    let b = this.bases.get(baseUrl);
    if (!b) {
      const u = new URL(baseUrl);
      b = { origin: u.origin, prefix: u.pathname.replace(/\/+$/, '') };
      if (this.bases.size >= 1000) this.bases.clear();
      this.bases.set(baseUrl, b);
    }
    return b;
  }

  private timeouts(r: UpstreamRequest): UpstreamTimeouts {
    // A call may ask for tighter timeouts than the configured ones, never for looser ones (config is the ceiling).
    const d = this.defaults;
    const o = r.timeouts;
    if (!o) return d;
    return {
      connectMs: Math.min(d.connectMs, o.connectMs ?? d.connectMs),
      headersMs: Math.min(d.headersMs, o.headersMs ?? d.headersMs),
      bodyIdleMs: Math.min(d.bodyIdleMs, o.bodyIdleMs ?? d.bodyIdleMs),
    };
  }

  async request(r: UpstreamRequest): Promise<UpstreamResponse> {
    const t = this.timeouts(r);
    const base = this.base(r.baseUrl);
    try {
      return await this.pool(base.origin, t).request({
        method: r.method,
        path: base.prefix + r.path,
        headers: r.headers ?? {},
        body: r.body ?? null,
        signal: r.signal ?? null,
        headersTimeout: t.headersMs,
        bodyTimeout: t.bodyIdleMs,
      });
    } catch (e) {
      throw networkError(e);
    }
  }

  /**
   * The same call as `request`, for answers read whole: the body is collected into one string by a plain
   * dispatch handler — no Readable stream and no async resource per call.
   * Transport failures, timeouts and aborts map to the same GatewayErrors as `request` + reading the body.
   * The handler speaks undici's original callbacks (raw-dispatch.ts).
   */
  requestText(r: UpstreamRequest): Promise<UpstreamTextResponse> {
    const t = this.timeouts(r);
    const base = this.base(r.baseUrl);
    return new Promise<UpstreamTextResponse>((resolve, reject) => {
      const call = new TextCall(
        resolve,
        reject,
        this.deadlines.deadline(t.headersMs, t.bodyIdleMs),
        AbortLink.on(r.signal),
      );
      try {
        // undici's timers off (0): the deadline sweep applies the same limits.
        this.pool(base.origin, t).dispatch(
          {
            method: r.method,
            path: base.prefix + r.path,
            headers: r.headers ?? {},
            body: r.body ?? null,
            headersTimeout: 0,
            bodyTimeout: 0,
          },
          asDispatchHandler(call),
        );
      } catch (e) {
        call.onError(e as Error);
      }
    });
  }

  /** The same call as `request`, for streams: the body is iterated as it arrives (see http-stream.ts). */
  requestStream(r: UpstreamRequest): Promise<UpstreamStreamResponse> {
    const t = this.timeouts(r);
    const base = this.base(r.baseUrl);
    return dispatchStream(
      this.pool(base.origin, t),
      // undici's timers off (0): the deadline applies the same limits.
      {
        method: r.method,
        path: base.prefix + r.path,
        headers: r.headers ?? {},
        body: r.body ?? null,
        headersTimeout: 0,
        bodyTimeout: 0,
      },
      r.signal,
      networkError,
      this.deadlines.deadline(t.headersMs, t.bodyIdleMs),
    );
  }

  async close(): Promise<void> {
    this.deadlines.stop();
    await Promise.all([...this.pools.values()].map((p) => p.close().catch(() => undefined)));
    this.pools.clear();
  }
}

// Connection-phase failures: the request never reached the upstream, so repeating it is always safe.
const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Map a transport failure to a gateway error (never exposing the upstream address).
 * `upstream_unreachable` means "certainly not sent" (retry-safe for anything); a timeout, reset or close after
 * the request went out is marked mayHaveRun, since the upstream may be acting on it.
 */
export function networkError(e: unknown): GatewayError {
  if (e instanceof GatewayError) return e;
  const code = (e as { code?: string })?.code ?? '';
  if (e instanceof undiciErrors.ConnectTimeoutError || CONNECT_CODES.has(code)) {
    return new GatewayError('upstream_unreachable', 'The upstream could not be reached', { cause: e });
  }
  if (e instanceof undiciErrors.HeadersTimeoutError || e instanceof undiciErrors.BodyTimeoutError) {
    return new GatewayError('upstream_timeout', 'The upstream did not answer in time', { cause: e, mayHaveRun: true });
  }
  // Only the caller's signal aborts a call (deadlines abort with the timeout errors above): its client left.
  if (e instanceof undiciErrors.RequestAbortedError || (e as Error)?.name === 'AbortError') {
    return new GatewayError('upstream_error', 'The upstream request was aborted', {
      cause: e,
      mayHaveRun: true,
      callerAborted: true,
    });
  }
  return new GatewayError('upstream_error', 'The upstream connection was closed unexpectedly', {
    cause: e,
    mayHaveRun: true,
  });
}

/** Read a whole (small) upstream body as JSON; malformed JSON is an upstream error, not a crash. */
export async function readJson(res: UpstreamResponse, maxBytes = 32 * 1024 * 1024): Promise<unknown> {
  let text: string;
  try {
    const buf = Buffer.from(await res.body.arrayBuffer());
    if (buf.length > maxBytes) throw new GatewayError('upstream_error', 'The upstream answer was too large');
    text = buf.toString('utf8');
  } catch (e) {
    throw networkError(e);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new GatewayError('upstream_error', 'The upstream returned a malformed response');
  }
}

/**
 * readJson for an answer whose error status outranks its body: an error status with an unreadable body is that status's
 * error.
 */
export async function readJsonOrStatus(
  res: UpstreamResponse,
  errorOf: (status: number, body: unknown) => Error,
): Promise<unknown> {
  try {
    return await readJson(res);
  } catch (e) {
    if (res.statusCode >= 400) throw errorOf(res.statusCode, undefined);
    throw e;
  }
}
