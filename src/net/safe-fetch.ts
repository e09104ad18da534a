// Outbound downloads on the upstream's behalf (image b64 conversion, video content proxy).
// Every hop — the first URL and each redirect — passes the URL policy (scheme, host allow-list,
// IP literals) and the connect-time address check; redirects are followed by hand, at most 3.
import { type Readable, Transform, pipeline } from 'node:stream';
import type { IncomingHttpHeaders } from 'node:http';
import type { Agent, Dispatcher } from 'undici';
import { GatewayError } from '../errors/gateway-error.ts';
import { createSafeAgents, findForbidden, type Resolver, type SafeAgents } from './safe-agent.ts';
import { checkUrl, refused, type CheckedUrl, type OutboundPolicy } from './url-policy.ts';

export interface SafeFetchOptions extends OutboundPolicy {
  method?: 'GET' | 'HEAD';
  /** Request headers (e.g. Range). Dropped on a redirect to another origin. */
  headers?: Record<string, string>;
  /** Body size cap in bytes (default 20 MiB). */
  maxBytes?: number;
  /**
   * safeFetch: whole-download deadline. safeStream: time to response headers and max idle between chunks. Default 30 s.
   */
  timeoutMs?: number;
  maxRedirects?: number;
  signal?: AbortSignal;
}

export interface SafeFetchResult {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The URL that finally answered (after redirects). Internal: never show it to a client. */
  finalUrl: string;
}

export interface SafeStreamResult {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** The body, size-capped; destroying it aborts the download. */
  body: Readable;
  finalUrl: string;
}

export const DEFAULT_MAX_BYTES = 20 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_REDIRECTS = 3;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export function failed(reason: string, cause?: unknown): GatewayError {
  return new GatewayError(
    'download_failed',
    `The result could not be downloaded: ${reason}`,
    cause === undefined ? {} : { cause },
  );
}

/** Abort a body we will not read; the noop listener keeps undici's abort error from going unhandled. */
function discard(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}

function tooLarge(max: number): GatewayError {
  return failed(`it is larger than the ${max}-byte limit`);
}

function headerValue(h: IncomingHttpHeaders, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

interface Hop {
  res: Dispatcher.ResponseData;
  finalUrl: string;
}

export class SafeNet {
  /** Also the client callbacks' (tasks/callbacks.ts): one outbound guard per composition. */
  constructor(readonly agents: SafeAgents) {}

  private async send(
    c: CheckedUrl,
    method: string,
    headers: Record<string, string>,
    signal: AbortSignal | undefined,
    timeoutMs: number,
  ): Promise<Dispatcher.ResponseData> {
    const agent: Agent = c.privateOk ? this.agents.permissive : this.agents.strict;
    return agent.request({
      origin: c.url.origin,
      path: c.url.pathname + c.url.search,
      method: method as Dispatcher.HttpMethod,
      headers,
      signal: signal ?? null,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
  }

  /** Follow redirects by hand, re-checking the policy on every hop. */
  private async open(
    raw: string | URL,
    o: SafeFetchOptions,
    signal: AbortSignal | undefined,
    timeoutMs: number,
  ): Promise<Hop> {
    let current = checkUrl(raw, o);
    let method: string = o.method ?? 'GET';
    let headers: Record<string, string> = { ...(o.headers ?? {}) };
    const max = o.maxRedirects ?? MAX_REDIRECTS;
    for (let hop = 0; ; hop++) {
      const res = await this.send(current, method, headers, signal, timeoutMs);
      const location = headerValue(res.headers, 'location');
      if (!REDIRECTS.has(res.statusCode) || !location) return { res, finalUrl: current.url.href };
      await res.body.dump().catch(() => undefined);
      if (hop >= max) throw failed(`more than ${max} redirects`);
      let next: URL;
      try {
        next = new URL(location, current.url);
      } catch {
        throw failed('the redirect target is not a valid URL');
      }
      const checked = checkUrl(next, o);
      // Caller headers may carry credentials meant for the first origin only.
      if (checked.url.origin !== current.url.origin) headers = {};
      if (
        res.statusCode === 303 ||
        ((res.statusCode === 301 || res.statusCode === 302) && method !== 'GET' && method !== 'HEAD')
      )
        method = 'GET';
      current = checked;
    }
  }

  /** Download a whole (small) body into memory. Non-2xx final answers are download_failed. */
  async fetch(url: string | URL, o: SafeFetchOptions): Promise<SafeFetchResult> {
    const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const maxBytes = o.maxBytes ?? DEFAULT_MAX_BYTES;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = o.signal ? AbortSignal.any([o.signal, deadline]) : deadline;
    try {
      const { res, finalUrl } = await this.open(url, o, signal, timeoutMs);
      if (res.statusCode < 200 || res.statusCode > 299) {
        await res.body.dump().catch(() => undefined);
        throw failed(`the result host answered HTTP ${res.statusCode}`);
      }
      const declared = Number(headerValue(res.headers, 'content-length') ?? NaN);
      if (Number.isFinite(declared) && declared > maxBytes) {
        discard(res.body);
        throw tooLarge(maxBytes);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > maxBytes) {
          discard(res.body);
          throw tooLarge(maxBytes);
        }
        chunks.push(chunk);
      }
      return { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks), finalUrl };
    } catch (e) {
      throw mapError(e, deadline.aborted);
    }
  }

  /** Open a download for proxying (Range etc. via headers); the body streams with a size cap. */
  async stream(url: string | URL, o: SafeFetchOptions): Promise<SafeStreamResult> {
    const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const maxBytes = o.maxBytes ?? DEFAULT_MAX_BYTES;
    let hop: Hop;
    try {
      hop = await this.open(url, o, o.signal, timeoutMs);
    } catch (e) {
      throw mapError(e, false);
    }
    const { res, finalUrl } = hop;
    const declared = Number(headerValue(res.headers, 'content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > maxBytes) {
      discard(res.body);
      throw tooLarge(maxBytes);
    }
    let size = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        size += chunk.length;
        if (size > maxBytes) cb(tooLarge(maxBytes));
        else cb(null, chunk);
      },
    });
    pipeline(res.body, counted, () => undefined);
    return { statusCode: res.statusCode, headers: res.headers, body: counted, finalUrl };
  }

  close(): Promise<void> {
    return this.agents.close();
  }
}

function mapError(e: unknown, timedOut: boolean): GatewayError {
  if (e instanceof GatewayError) return e;
  const forbidden = findForbidden(e);
  if (forbidden) return refused(forbidden.message);
  const name = (e as { name?: string; code?: string } | null)?.code ?? (e as { name?: string } | null)?.name ?? '';
  if (
    timedOut ||
    /Timeout/i.test(name) ||
    name === 'UND_ERR_HEADERS_TIMEOUT' ||
    name === 'UND_ERR_BODY_TIMEOUT' ||
    name === 'UND_ERR_CONNECT_TIMEOUT'
  ) {
    return failed('the result host did not answer in time', e);
  }
  return failed('the result host could not be reached', e);
}

/**
 * A SafeNet with its own agents (the gateway's one is built in compose.ts); tests pass a fake resolver for DNS answers.
 */
export function createSafeNet(opts: { resolve?: Resolver; connectTimeoutMs?: number } = {}): SafeNet {
  return new SafeNet(createSafeAgents(opts.resolve, opts.connectTimeoutMs));
}
