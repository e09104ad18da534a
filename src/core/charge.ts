// Charging rules for calls answered at once, the estimates used when the upstream reports no usage (text) or before
// it can (the hold of an async video task), and what a finished task is charged. One rule each; the task engine
// applies the last one (tasks/settle.ts) within the success's transaction.
import type { TokenUsage } from '../adapters/types.ts';
import type { Catalogue } from '../catalogue/catalogue.ts';
import type { ModelEntry, ResolvedModel } from '../catalogue/types.ts';
import { isObject } from '../json/json.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { priceDefaultsOf } from '../pricing/prices.ts';
import type { Meter, ModeTier, SyncChargeInput, Usage, VideoTier } from '../metering/types.ts';
import type { ReportedUsage, TaskRecord } from '../tasks/types.ts';
import { principalOf, type CallContext } from './call.ts';

/** ≈4 characters a token, 258 tokens an image: the documented estimate when the upstream reported no usage. */
export const CHARS_PER_TOKEN = 4;
export const IMAGE_TOKENS_ESTIMATE = 258;
const MEDIA_KEYS = new Set(['image_url', 'image', 'url', 'data', 'source', 'video_url', 'input_image', 'file_data']);
const MEDIA_REF = /^(?:https?|data|oss|file):/i;
const BASE64 = /^[A-Za-z0-9+/=\r\n]+$/;

/**
 * Is this value under a media key really media — a URL, a data URI or base64 text, or an object carrying one (an
 * `image_url` part's `{url}`, a messages `source` of type base64 or url)? Anything else under such a name (a tool
 * schema's property `data`, a tool call's `input.source`) is text the upstream reads, and is counted as text.
 */
function isMedia(v: unknown): boolean {
  if (typeof v === 'string') return MEDIA_REF.test(v) || (v.length >= 64 && BASE64.test(v));
  if (!isObject(v)) return false;
  // A messages source says what it is: {type: base64, media_type, data}, {type: url, url}, {type: file, file_id}.
  if (
    (v.type === 'base64' || v.type === 'url' || v.type === 'file') &&
    (typeof v.data === 'string' || typeof v.url === 'string' || typeof v.file_id === 'string')
  )
    return true;
  return (typeof v.url === 'string' && isMedia(v.url)) || (typeof v.data === 'string' && isMedia(v.data));
}

/** Input characters and media parts of a request value (URLs/base64 are not text). */
export function inputSize(v: unknown, acc = { chars: 0, media: 0 }): { chars: number; media: number } {
  if (typeof v === 'string') acc.chars += v.length;
  else if (Array.isArray(v)) for (const x of v) inputSize(x, acc);
  else if (isObject(v)) {
    // for…in over a parsed JSON object: its own keys only, without an entries array per object.
    for (const k in v) {
      const x = v[k];
      if (MEDIA_KEYS.has(k) && isMedia(x)) {
        acc.media += 1;
        continue;
      }
      if (k === 'type' || k === 'role' || k === 'cache_control') continue;
      inputSize(x, acc);
    }
  }
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

/**
 * Exactly one ledger entry for a text call (idempotent by request id). Without a reservation it is queued for the
 * group commit and not awaited on the request path — unless the queue's writer is behind (Meter.chargesBehind): then
 * the promise resolves once the queue has caught up with it; a reserved call (a token with a quota) settles its
 * reservation and writes the charge in one transaction, and the promise resolves when both are committed.
 * Throws when the call cannot be priced, before anything is answered. `delivered`: the answer already reached the
 * client (a stream's end), so a settlement the store refuses for the moment cannot fail the call: the charge goes
 * to the group commit instead (retried until written; the same key); settle has released the reservation (else the
 * reaper does), so the quota does not count the call twice meanwhile.
 */
export function chargeTokens(
  meter: Meter,
  call: CallContext,
  model: ResolvedModel,
  usage: TokenUsage,
  estimated: boolean,
  upstreamRequestId: string | null,
  delivered = false,
): void | Promise<void> {
  const st = call.state;
  st.usage = usageJson(usage, estimated);
  st.tokens = usage.inputTokens + usage.outputTokens;
  if (upstreamRequestId) st.upstreamRequestId = upstreamRequestId;
  const input: SyncChargeInput = {
    requestId: call.id,
    tokenId: principalOf(call).tokenId,
    model: model.publicName,
    billingModel: model.billingModel,
    usage,
    upstreamRequestId,
  };
  if (!st.reserved) {
    st.amount = meter.chargeSyncDeferred(input);
    return meter.chargesBehind();
  }
  const settled = settle(meter, call, input);
  if (settled === undefined || !delivered) return settled;
  return settled.catch(async (e: unknown) => {
    call.log.error({ err: String(e) }, 'settling a delivered call failed; its charge is queued for the group commit');
    // settle released the hold (else the reaper will): the queued charge is not counted twice against the quota.
    call.state.amount = meter.chargeSyncDeferred({ ...input, billing: principalOf(call).billing });
  });
}

/**
 * Turn the call's reservation into its charge. `reserved` is cleared first, so nothing else on the call releases the
 * hold while it is being settled; if the settlement fails, the hold is released here (a no-op when the settlement
 * did commit and only its answer was lost) before the error goes on, so a failed call never keeps its quota held.
 * Undefined when it is settled at once (a call that reserved from an allowance: its charge is queued) and the
 * queue's writer keeps up (else the queue's back-pressure: Meter.chargesBehind).
 */
function settle(meter: Meter, call: CallContext, input: SyncChargeInput): Promise<void> | undefined {
  call.state.reserved = false;
  let r: Promise<number> | number;
  try {
    r = meter.settleReserved(input);
  } catch (e) {
    return releaseAndThrow(meter, call, e);
  }
  if (typeof r === 'number') {
    call.state.amount = r;
    return meter.chargesBehind();
  }
  return r.then(
    (n) => {
      call.state.amount = n;
    },
    (e: unknown) => releaseAndThrow(meter, call, e),
  );
}

async function releaseAndThrow(meter: Meter, call: CallContext, e: unknown): Promise<never> {
  await meter
    .releaseReserved(call.id)
    .catch((err: unknown) =>
      call.log.error({ err: String(err) }, 'reservation release failed; the reaper releases it'),
    );
  throw e;
}

/** One charge for the images delivered to the client (never for images produced but not delivered). */
export async function chargeImages(
  meter: Meter,
  call: CallContext,
  model: ResolvedModel,
  images: number,
  upstreamRequestId: string | null,
): Promise<number> {
  const input: SyncChargeInput = {
    requestId: call.id,
    tokenId: principalOf(call).tokenId,
    model: model.publicName,
    billingModel: model.billingModel,
    usage: { kind: 'images', images },
    upstreamRequestId,
  };
  if (call.state.reserved) await settle(meter, call, input);
  else call.state.amount = await meter.chargeSync(input);
  return call.state.amount;
}

/** Output tokens reserved for a text call that names no output limit of its own. */
export const DEFAULT_OUTPUT_RESERVE = 4096;
/** Tokens reserved per image or other media part of a text call's input. */
export const MEDIA_TOKENS_RESERVE = 1280;
const OUTPUT_LIMIT_KEYS = ['max_tokens', 'max_completion_tokens', 'max_output_tokens'] as const;

/**
 * What a text call may cost at most, held against the quota before the call: a token per input character (no
 * tokenizer yields fewer characters per token), MEDIA_TOKENS_RESERVE per media part, and the call's own output
 * limit (the largest it names, else DEFAULT_OUTPUT_RESERVE; none for embeddings).
 */
export function textReservation(body: unknown, output: boolean): TokenUsage {
  const size = inputSize(body);
  let out = 0;
  if (output) {
    out = DEFAULT_OUTPUT_RESERVE;
    if (isObject(body)) {
      // The largest limit named: an upstream that honours another of the keys than the one read last would
      // otherwise produce more than was reserved.
      let named = 0;
      for (const k of OUTPUT_LIMIT_KEYS) {
        const v = body[k];
        if (typeof v === 'number' && Number.isSafeInteger(v) && v > named) named = v;
      }
      if (named > 0) out = named;
      // `n` choices (chat completions) each produce up to the limit: the body goes upstream as sent, `n` with it.
      const n = body.n;
      if (typeof n === 'number' && Number.isSafeInteger(n) && n > 1) out = Math.min(out * n, Number.MAX_SAFE_INTEGER);
    }
  }
  return { kind: 'tokens', inputTokens: size.chars + size.media * MEDIA_TOKENS_RESERVE, outputTokens: out };
}

/**
 * The usage estimate of an async video task at creation — what it holds, and what a success that reports no usage
 * is charged: requested (or default) seconds at the requested (or default) tier. An input+output edit model bills
 * its input's length too, unknown until the provider reports it: the requested length is counted for the input as
 * well.
 */
export function videoEstimate(
  entry: ModelEntry,
  req: { seconds?: number; resolution?: VideoTier; mode?: ModeTier },
): Usage {
  if (entry.price.unit === 'video-mode-second') {
    return {
      kind: 'video-mode',
      outputSeconds: req.seconds ?? 5,
      tier: req.mode ?? priceDefaultsOf(entry).defaultMode ?? 'std',
    };
  }
  if (entry.price.unit !== 'video-second')
    throw new GatewayError('internal_error', `metering: ${entry.id} is not a video model`);
  const tier = req.resolution ?? entry.video?.defaultResolution ?? '1080p';
  const seconds = req.seconds ?? entry.video?.defaultSeconds ?? 5;
  return {
    kind: 'video',
    outputSeconds: seconds,
    inputSeconds: entry.price.basis === 'input+output' ? seconds : 0,
    tier,
  };
}

/**
 * A larger hold than the estimate, when the estimate can fall short of the charge: an input+output edit model
 * whose length the request does not set (`hhx-1.0-video-edit`: the output is as long as the input, which the
 * upstream cuts to the model's longest) holds the longest it can bill — so parallel edits cannot take a token past
 * its quota. Undefined otherwise (the estimate is held).
 */
export function videoHold(entry: ModelEntry, estimate: Usage): Usage | undefined {
  if (
    estimate.kind !== 'video' ||
    entry.price.unit !== 'video-second' ||
    entry.price.basis !== 'input+output' ||
    entry.video?.duration !== false
  )
    return undefined;
  return { ...estimate, outputSeconds: entry.video.maxSeconds, inputSeconds: entry.video.maxSeconds };
}

/**
 * DashScope reports the output resolution as `SR` (720, 1080). ≥1080 bills at the 1080p tier; anything lower (480P
 * included) at 720p, the lowest tier the contract has. Null when absent or unreadable (the created tier applies).
 */
export function videoTierFromSR(sr: unknown): VideoTier | null {
  const n = typeof sr === 'number' ? sr : typeof sr === 'string' ? Number.parseInt(sr, 10) : Number.NaN;
  if (!Number.isFinite(n) || n <= 0) return null;
  return n >= 1080 ? '1080p' : '720p';
}

type Seconds = { outputSeconds: number; inputSeconds: number };

/**
 * Seconds to bill. Output basis: output duration (else the total). Input+output basis: in + out when both are
 * reported, else the total (already their sum for edit models) — an input reported longer than that sum counts as
 * the sum: the provider's total is billed, never a negative output that cannot be priced. Null when nothing billable
 * was reported (0 seconds included): the task is charged its estimate, never 0.
 */
export function billedSeconds(p: ReportedUsage, basis: 'output' | 'input+output'): Seconds | null {
  const s = reportedSeconds(p, basis);
  return s !== null && s.outputSeconds + s.inputSeconds > 0 ? s : null;
}

function reportedSeconds(p: ReportedUsage, basis: 'output' | 'input+output'): Seconds | null {
  const out = p.outputSeconds ?? null;
  const inp = p.inputSeconds ?? null;
  const total = p.totalSeconds ?? null;
  if (basis === 'output') {
    const o = out ?? total;
    return o === null ? null : { outputSeconds: o, inputSeconds: 0 };
  }
  if (out !== null && inp !== null && inp + out > 0) return { outputSeconds: out, inputSeconds: inp };
  if (total !== null) {
    const input = Math.min(inp ?? 0, total);
    return { outputSeconds: total - input, inputSeconds: input };
  }
  if (out !== null) return { outputSeconds: out, inputSeconds: inp ?? 0 };
  return null;
}

/**
 * What a finished task is charged, from what its upstream reported: the reported seconds on the model's price basis
 * (`input+output` for edit models) at the reported resolution, else the tier the task was created (and held) at; a
 * family A task its reported seconds at its mode. The task's estimate (its `usage` until success) when nothing
 * billable was reported; null only for a task without one.
 */
export function finishedTaskUsage(
  catalogue: Catalogue,
  task: Pick<TaskRecord, 'billingModel' | 'tier' | 'usage'>,
  reported: ReportedUsage | undefined,
): Usage | null {
  const estimate = task.usage;
  if (!reported || !estimate) return estimate;
  if (estimate.kind === 'video') {
    const entry = catalogue.get(task.billingModel);
    const secs = billedSeconds(reported, entry && entry.price.unit === 'video-second' ? entry.price.basis : 'output');
    if (!secs) return estimate;
    return {
      kind: 'video',
      ...secs,
      tier: videoTierFromSR(reported.resolution) ?? (task.tier === '720p' ? '720p' : '1080p'),
    };
  }
  if (estimate.kind === 'video-mode') {
    const seconds = reported.outputSeconds ?? null;
    if (seconds === null || !(seconds > 0)) return estimate;
    const tier: ModeTier = task.tier === 'pro' ? 'pro' : 'std';
    return { kind: 'video-mode', outputSeconds: seconds, tier };
  }
  return estimate;
}
