// One POST to a DashScope endpoint: auth header, body, error answer → GatewayError (sanitised by the renderer).
import { isObject } from '../../json/json.ts';
import { detachedSlice, isPlainSpan, stringEnd } from '../../json/json-text.ts';
import { GatewayError, withUpstreamRequestId } from '../../errors/gateway-error.ts';
import { num } from '../json-scan.ts';
import type { UpstreamClient, UpstreamResponse } from '../http-client.ts';
import { networkError } from '../network-errors.ts';
import type { UpstreamTextResponse } from '../text-call.ts';
import type { UpstreamStreamResponse } from '../http-stream.ts';
import type { CallOptions, UpstreamTarget } from '../types.ts';
import { retryAfterMs } from '../retry-after.ts';
import { dashscopeError } from './errors.ts';

export interface PostOptions {
  path: string;
  body: string;
  /** Auth header style: DashScope uses Bearer; the anthropic-compatible path takes x-api-key. */
  auth?: 'bearer' | 'x-api-key';
  headers?: Record<string, string>;
}

// The headers of a call that forwards none of the client's: the same four variants per target on every request,
// so they are built once (targets are one object per channel: text-call.ts).
const plainHeaders = new WeakMap<UpstreamTarget, Array<Record<string, string>>>();

function postHeaders(o: CallOptions, p: PostOptions, stream = false): Record<string, string> {
  if (o.headers || p.headers) return buildHeaders(o, p, stream);
  let variants = plainHeaders.get(o.target);
  if (variants === undefined) plainHeaders.set(o.target, (variants = []));
  const i = (p.auth === 'x-api-key' ? 2 : 0) + (stream ? 1 : 0);
  return (variants[i] ??= Object.freeze(buildHeaders(o, p, stream)));
}

function buildHeaders(o: CallOptions, p: PostOptions, stream: boolean): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...o.headers, ...p.headers };
  if (p.auth === 'x-api-key') headers['x-api-key'] = o.target.apiKey;
  else headers.authorization = `Bearer ${o.target.apiKey}`;
  if (stream) headers.accept = 'text/event-stream';
  return headers;
}

export async function postDashscope(client: UpstreamClient, o: CallOptions, p: PostOptions): Promise<UpstreamResponse> {
  const res = await client.request({
    method: 'POST',
    baseUrl: o.target.baseUrl,
    path: p.path,
    headers: postHeaders(o, p),
    body: p.body,
    ...(o.signal ? { signal: o.signal } : {}),
  });
  if (res.statusCode !== 200) throw await errorFrom(res);
  return res;
}

/** A streaming POST: the 200 answer's headers and its body as it arrives (error answers are read whole). */
export async function postDashscopeStream(
  client: UpstreamClient,
  o: CallOptions,
  p: PostOptions,
): Promise<UpstreamStreamResponse> {
  const res = await client.requestStream({
    method: 'POST',
    baseUrl: o.target.baseUrl,
    path: p.path,
    headers: postHeaders(o, p, true),
    body: p.body,
    ...(o.signal ? { signal: o.signal } : {}),
  });
  if (res.statusCode !== 200) {
    let text = '';
    try {
      text = await res.text();
    } catch (e) {
      throw networkError(e);
    }
    throw errorFromText(res.statusCode, res.headers, text);
  }
  return res;
}

/** A non-streaming POST read whole (no body stream): the 200 answer's status, headers and text. */
export function postDashscopeText(
  client: UpstreamClient,
  o: CallOptions,
  p: PostOptions,
): Promise<UpstreamTextResponse> {
  // A `then` with a module-level callback rather than an async function: less kept alive while the upstream answers.
  return client
    .requestText({
      method: 'POST',
      baseUrl: o.target.baseUrl,
      path: p.path,
      headers: postHeaders(o, p),
      body: p.body,
      ...(o.signal ? { signal: o.signal } : {}),
    })
    .then(okText);
}

function okText(res: UpstreamTextResponse): UpstreamTextResponse {
  if (res.statusCode !== 200) throw errorFromText(res.statusCode, res.headers, res.text);
  return res;
}

async function errorFrom(res: UpstreamResponse): Promise<GatewayError> {
  let text = '';
  try {
    text = await res.body.text();
  } catch (e) {
    return networkError(e);
  }
  return errorFromText(res.statusCode, res.headers, text);
}

function errorFromText(statusCode: number, headers: UpstreamResponse['headers'], text: string): GatewayError {
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  const err = dashscopeError(statusCode, parsed, statusCode === 429 ? retryAfterMs(headers['retry-after']) : undefined);
  const headerRid = headerString(headers['x-request-id']) ?? headerString(headers['request-id']);
  if (!err.upstreamRequestId && headerRid) return withUpstreamRequestId(err, headerRid);
  return err;
}

export function headerString(v: string | string[] | undefined): string | null {
  if (Array.isArray(v)) return v[0] ?? null;
  return v ?? null;
}

/** Read a whole 200 body as text (transport failures become gateway errors). */
export async function bodyText(res: UpstreamResponse): Promise<string> {
  try {
    return await res.body.text();
  } catch (e) {
    throw networkError(e);
  }
}

/**
 * A 200 answer the gateway cannot use (not JSON, no result): the upstream's fault, but the upstream did the work and
 * may bill it, so the call is never sent again to another account (routing/failover.ts).
 */
export function unusableAnswer(message: string): GatewayError {
  return new GatewayError('upstream_error', message, { mayHaveRun: true });
}

/** A 200 body that carried no usage must at least be JSON; otherwise the upstream answer was broken. */
export function assertJson(text: string): void {
  try {
    JSON.parse(text);
  } catch {
    throw unusableAnswer('The upstream returned a malformed response');
  }
}

/** The break of an upstream stream, as a gateway error (never a hang, never a raw transport message). */
export function streamBroke(e: unknown): GatewayError {
  if (e instanceof GatewayError) return e;
  const ge = networkError(e);
  if (ge.code === 'upstream_unreachable' || ge.code === 'upstream_unavailable' || ge.code === 'upstream_error')
    return new GatewayError('upstream_error', 'The upstream stream broke off before it was complete', { cause: e });
  return ge;
}

/**
 * The first `"<key>":"value"` string in a JSON text (ids), without parsing the whole text. Only the value is parsed
 * (its escapes decoded): that makes a string of its own. A substring (`slice`) would share the answer's text, and
 * an id outlives the answer — on the request's ledger and request-log rows until they are written, however long
 * the store keeps them queued — so it would keep a whole answer (an embeddings answer: tens of kilobytes) in memory.
 */
export function firstString(text: string, key: string): string | null {
  const needle = `"${key}":"`;
  const i = text.indexOf(needle);
  if (i < 0) return null;
  const open = i + needle.length - 1;
  const end = stringEnd(text, open);
  if (end < 0) return null;
  // An id written without escapes or control characters is its text between the quotes: no JSON.parse. It is
  // copied, not sliced: a slice of a long string may be a view that keeps the whole answer in memory.
  if (isPlainSpan(text, open + 1, end)) return detachedSlice(text, open + 1, end);
  try {
    return JSON.parse(text.slice(open, end + 1)) as string;
  } catch {
    return null;
  }
}

/** An error event inside an upstream stream (compatible `{"error":…}` or native `{code,message}`). */
export function dashscopeStreamError(data: string): GatewayError {
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(data);
  } catch {
    parsed = null;
  }
  return dashscopeError(500, parsed);
}

/**
 * The chat-style API reports cache writes at `usage.prompt_tokens_details.cache_creation_input_tokens`. An
 * upstream answer that reports them only at `usage.cache_creation_input_tokens` gets them copied there (the
 * JSON is re-serialised only in that case). Returns null when nothing needs to change.
 */
export function withContractCacheFields(json: string, u: Record<string, unknown>): string | null {
  const d = isObject(u.prompt_tokens_details) ? u.prompt_tokens_details : null;
  if (!num(u.cache_creation_input_tokens) || (d && d.cache_creation_input_tokens !== undefined)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return null;
  }
  // Only the answer's own top-level usage is rewritten (a `usage` key found deeper is left alone).
  if (
    !isObject(parsed) ||
    !isObject(parsed.usage) ||
    parsed.usage.cache_creation_input_tokens !== u.cache_creation_input_tokens
  )
    return null;
  parsed.usage.prompt_tokens_details = {
    ...(d ?? { cached_tokens: 0 }),
    cache_creation_input_tokens: u.cache_creation_input_tokens,
  };
  return JSON.stringify(parsed);
}
