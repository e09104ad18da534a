// What chat, responses, messages and embeddings share: resolve the public model, check quota (only when the
// token has one: no DB read on the hot path otherwise), pick a channel with failover before any byte is sent,
// call the adapter, and meter exactly once — from the upstream's usage, or an estimate when none arrived.
import type { CallOptions, CompleteResult, ErrorFrame, StreamResult, TextCapability, TextRequest, TokenUsage, UpstreamTarget } from '../../../adapters/types.ts';
import type { ModelKind, ResolvedModel } from '../../../catalogue/types.ts';
import { isObject, type JsonObject } from '../../../contracts/fields.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import type { Meter, SyncChargeInput } from '../../../metering/types.ts';
import type { Channel } from '../../../routing/channel-registry.ts';
import { withFailover } from '../../../routing/failover.ts';
import type { AppDeps } from '../../deps.ts';
import { sendBody, type Exchange } from '../../exchange.ts';
import { principalOf } from '../../request-state.ts';
import { ClientWatch, sendSse, type StreamOutcome } from '../../sse.ts';
import { resolveVisibleModel } from './models.ts';

export interface Prepared {
  r: ResolvedModel;
  tokenId: string;
}

/**
 * Resolve and authorise the model for this endpoint. Synchronous for a token without a quota (the common case:
 * no database read and no promise on the hot path); a token with a quota gets a promise that checks it.
 */
export function prepare(deps: AppDeps, req: Exchange, body: JsonObject, ok: (r: ResolvedModel) => boolean, what: string): Prepared | Promise<Prepared> {
  const r = resolveVisibleModel(deps, req, body.model);
  if (!ok(r)) throw new GatewayError('model_not_supported', `The model '${r.publicName}' does not support ${what}`, { param: 'model' });
  const p = principalOf(req);
  const prep: Prepared = { r, tokenId: p.tokenId };
  return p.quota === null ? prep : deps.meter.assertQuota(p.tokenId).then(() => prep);
}

export const isKind = (...kinds: ModelKind[]) => (r: ResolvedModel) => kinds.includes(r.entry.kind);

// One target per channel object (a reload makes new channel objects), not one per request.
const targets = new WeakMap<Channel, UpstreamTarget>();

function targetOf(ch: Channel): UpstreamTarget {
  let t = targets.get(ch);
  if (t === undefined) {
    if (!ch.keys.apiKey) throw new GatewayError('no_channel', 'The upstream channel has no API key configured');
    t = Object.freeze({ baseUrl: ch.baseUrl, apiKey: ch.keys.apiKey });
    targets.set(ch, t);
  }
  return t;
}

/** Call the upstream on the best channel, failing over while nothing has reached the client. */
export function callUpstream<T>(deps: AppDeps, prep: Prepared, fn: (o: CallOptions) => Promise<T>, extra?: Omit<CallOptions, 'target'>): Promise<T> {
  const channels = deps.channels.forModel(prep.r.entry);
  return withFailover(channels, deps.breakers, (ch) => fn(extra ? { ...extra, target: targetOf(ch) } : { target: targetOf(ch) }), {
    policy: 'safe',
    maxAttempts: Math.min(2, channels.length + 1),
    onNotEntitled: (ch) => deps.channels.markNotEntitled(ch.id, prep.r.entry.id),
  });
}

/** ≈4 characters a token, 258 tokens an image: the documented estimate when the upstream reported no usage. */
export const CHARS_PER_TOKEN = 4;
export const IMAGE_TOKENS_ESTIMATE = 258;
const MEDIA_KEYS = new Set(['image_url', 'image', 'url', 'data', 'source', 'video_url', 'input_image', 'file_data']);

/** Input characters and media parts of a request value (URLs/base64 are not text). */
export function inputSize(v: unknown, acc = { chars: 0, media: 0 }, key = ''): { chars: number; media: number } {
  if (typeof v === 'string') acc.chars += v.length;
  else if (Array.isArray(v)) for (const x of v) inputSize(x, acc);
  else if (isObject(v)) {
    for (const [k, x] of Object.entries(v)) {
      if (MEDIA_KEYS.has(k)) {
        acc.media += 1;
        continue;
      }
      if (k === 'type' || k === 'role' || k === 'cache_control') continue;
      inputSize(x, acc, k);
    }
  }
  void key;
  return acc;
}

export function estimateUsage(input: { chars: number; media: number }, outputChars: number): TokenUsage {
  return {
    kind: 'tokens',
    inputTokens: Math.ceil(input.chars / CHARS_PER_TOKEN) + input.media * IMAGE_TOKENS_ESTIMATE,
    outputTokens: Math.ceil(outputChars / CHARS_PER_TOKEN),
  };
}

function usageJson(u: TokenUsage, estimated: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { input_tokens: u.inputTokens, output_tokens: u.outputTokens };
  if (u.cachedTokens) out.cached_tokens = u.cachedTokens;
  if (u.cacheCreationTokens) out.cache_creation_tokens = u.cacheCreationTokens;
  if (estimated) out.estimated = true;
  return out;
}

/** Exactly one ledger entry for this request (idempotent by request id), never awaited on the request path. */
export function meter(deps: AppDeps, req: Exchange, prep: Prepared, usage: TokenUsage, estimated: boolean, upstreamRequestId: string | null): void {
  const input: SyncChargeInput = { requestId: req.id, tokenId: prep.tokenId, model: prep.r.publicName, billingModel: prep.r.billingModel, usage, upstreamRequestId };
  req.state.usage = usageJson(usage, estimated);
  if (upstreamRequestId) req.state.upstreamRequestId = upstreamRequestId;
  const m = deps.meter as Meter & { chargeSyncDeferred?: (i: SyncChargeInput) => number };
  if (typeof m.chargeSyncDeferred === 'function') {
    req.state.amount = m.chargeSyncDeferred(input);
    return;
  }
  req.state.amount = deps.meter.price(prep.r.billingModel, usage).amount;
  deps.meter.chargeSync(input).catch((e: unknown) => req.log.error({ err: String(e) }, 'ledger write failed'));
}

/** Non-streaming: forward the adapter's bytes, meter from its usage (or the estimate). */
export function sendComplete(deps: AppDeps, req: Exchange, prep: Prepared, run: (o: CallOptions) => Promise<CompleteResult>, extra?: Omit<CallOptions, 'target'>): Promise<void> {
  // Not async: the call's promise, continued (one promise layer less per request).
  return callUpstream(deps, prep, run, extra).then((out) => {
    // Charged before the answer goes out: a charge that cannot be made (no price) fails the call with a clean error
    // instead of delivering an unbilled answer on a socket it would then have to cut.
    meter(deps, req, prep, out.usage ?? estimateUsage(inputSize(req.body), 0), out.usage === null, out.upstreamRequestId);
    sendBody(req, 200, out.body);
  });
}

/**
 * Streaming: start the upstream stream (errors before the first byte are ordinary JSON errors), then pipe it.
 * Metering rule: once the upstream accepted the stream, the call is metered once — by the upstream's
 * reported usage if it arrived, otherwise by the estimate of the request's input and the output produced.
 */
export async function sendStream(deps: AppDeps, req: Exchange, prep: Prepared, cap: TextCapability, treq: TextRequest, errorFrame: ErrorFrame, headers?: Record<string, string>): Promise<void> {
  const watch = new ClientWatch(req.res);
  let s: StreamResult;
  try {
    s = await callUpstream(deps, prep, (o) => cap.stream(treq, o), { signal: watch.signal, ...(headers ? { headers } : {}) });
  } catch (e) {
    watch.dispose();
    throw e;
  }
  if (s.upstreamRequestId) req.state.upstreamRequestId = s.upstreamRequestId;
  await sendSse(req, {
    frames: s.frames,
    watch,
    errorFrame,
    onEnd: (outcome: StreamOutcome) => {
      const reported = s.usage();
      const usage = reported ?? estimateUsage(inputSize(req.body), s.producedChars());
      meter(deps, req, prep, usage, reported === null, s.upstreamRequestId);
      if (outcome !== 'complete') req.log.info({ outcome, metered_by: reported ? 'upstream usage' : 'estimate' }, 'stream ended early');
    },
  });
}

/** Chat-style error event: `data: {"error":{…}}` (what OpenAI-style SDKs raise on). */
export const chatErrorFrame: ErrorFrame = (_e, body) => `data: ${JSON.stringify({ error: body })}\n\n`;
