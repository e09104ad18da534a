// Chat, responses, messages and embeddings: which model serves the call, the upstream call through upstreamCall,
// and exactly one charge — from the upstream's usage, or the documented estimate when none arrived.
import type { CallOptions, CompleteResult, StreamResult, TextCapability, TextRequest } from '../adapters/types.ts';
import type { ModelKind, ResolvedModel } from '../catalogue/types.ts';
import type { JsonObject } from '../json/json.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { apiKeyTarget } from '../routing/channel-target.ts';
import type { CallContext } from './call.ts';
import { chargeTokens } from './charge.ts';
import { estimateUsage, inputSize, textReservation } from './text-estimate.ts';
import { resolveVisibleModel, type ModelAccessDeps } from './model-access.ts';
import { releaseReservation, upstreamCall, type CallPlan, type UpstreamCallDeps } from './upstream-call.ts';

export type TextDeps = ModelAccessDeps & UpstreamCallDeps;

/** A text call: its context and the parsed client body (the basis of the estimate). */
export interface TextCall extends CallContext {
  readonly body: unknown;
}

export const isKind =
  (...kinds: ModelKind[]) =>
  (r: ResolvedModel) =>
    kinds.includes(r.entry.kind);

/** The model for this endpoint, visible to the caller and able to serve it. */
export function textModel(
  deps: ModelAccessDeps,
  call: TextCall,
  body: JsonObject,
  ok: (r: ResolvedModel) => boolean,
  what: string,
): ResolvedModel {
  const r = resolveVisibleModel(deps, call, body.model);
  if (!ok(r))
    throw new GatewayError('model_not_supported', `The model '${r.publicName}' does not support ${what}`, {
      param: 'model',
    });
  return r;
}

export function textRequest(r: ResolvedModel, body: JsonObject, raw: string | undefined): TextRequest {
  return { body, upstreamModel: r.upstreamModel, publicModel: r.publicName, raw };
}

// Text calls may be repeated on another channel until a byte reached the client: two attempts at most. A token
// with a quota reserves the call's upper estimate first (embeddings produce no output tokens).
// One plan per resolved model (resolve() answers are shared), so a call allocates none.
const plans = new WeakMap<ResolvedModel, CallPlan>();
const reserveText = (call: CallContext) => textReservation((call as TextCall).body, true);
const reserveEmbedding = (call: CallContext) => textReservation((call as TextCall).body, false);

function planOf(r: ResolvedModel): CallPlan {
  let plan = plans.get(r);
  if (plan === undefined) {
    plan = {
      entry: r.entry,
      upstreamModel: r.upstreamModel,
      retry: 'safe',
      quota: { reserve: r.entry.kind === 'embedding' ? reserveEmbedding : reserveText },
      maxAttempts: 2,
    };
    plans.set(r, plan);
  }
  return plan;
}

function run<T>(
  deps: TextDeps,
  call: TextCall,
  r: ResolvedModel,
  fn: (o: CallOptions) => Promise<T>,
  extra: Omit<CallOptions, 'target'> | undefined,
): Promise<T> {
  return upstreamCall(deps, call, planOf(r), (ch) =>
    fn(extra ? { ...extra, target: apiKeyTarget(ch) } : { target: apiKeyTarget(ch) }),
  );
}

/**
 * Non-streaming: the upstream's answer is charged, then handed to `answer` (the caller writes it). Charged first:
 * a charge that cannot be made fails the call with a clean error instead of delivering an unbilled answer. An
 * answer with no result and no usage is an upstream error, and nothing is charged.
 */
export function completeText(
  deps: TextDeps,
  call: TextCall,
  r: ResolvedModel,
  fn: (o: CallOptions) => Promise<CompleteResult>,
  answer: (body: string) => void,
  extra?: Omit<CallOptions, 'target'>,
): Promise<void> {
  // Not async: the call's promise, continued (one promise layer less per request).
  return run(deps, call, r, fn, extra).then((out) => {
    let usage = out.usage;
    if (usage === null) {
      const chars = resultChars(out.body);
      if (chars === null) return noResult(deps, call, out.upstreamRequestId);
      usage = estimateUsage(inputSize(call.body), chars);
    }
    const charged = chargeTokens(deps.meter, call, r, usage, out.usage === null, out.upstreamRequestId);
    if (charged === undefined) return answer(out.body);
    return charged.then(
      () => answer(out.body),
      (e: unknown) => releaseReservation(deps.meter, call).then(() => Promise.reject(e)),
    );
  });
}

// Where each text API puts its result: chat `choices`, responses `output`, messages `content`, embeddings `data`.
const RESULT_KEYS = ['choices', 'output', 'content', 'data'];
// The members of a result that hold produced text: content, reasoning and tool-call arguments (as a stream counts
// them).
const PRODUCED_KEYS = new Set(['content', 'text', 'reasoning_content', 'thinking', 'arguments', 'refusal']);

/**
 * An answer that reported no usage: the characters of text it produced (content, reasoning, tool-call arguments:
 * the output it is charged by, as a cut stream is), or null when it carries no result at all. Read only on that
 * rare path. An embeddings result produces no text (0).
 */
export function resultChars(body: string): number | null {
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Record<string, unknown>;
  const key = RESULT_KEYS.find(
    (k) => (Array.isArray(o[k]) && (o[k] as unknown[]).length > 0) || (typeof o[k] === 'string' && o[k] !== ''),
  );
  if (key === undefined) return null;
  return key === 'data' ? 0 : producedChars(o[key], key === 'content');
}

/** Characters of the strings under PRODUCED_KEYS in a result value (`produced`: this value is itself such a member). */
function producedChars(v: unknown, produced: boolean): number {
  if (typeof v === 'string') return produced ? v.length : 0;
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + producedChars(x, produced), 0);
  if (typeof v !== 'object' || v === null) return 0;
  let n = 0;
  for (const [k, x] of Object.entries(v)) n += producedChars(x, PRODUCED_KEYS.has(k));
  return n;
}

async function noResult(deps: TextDeps, call: TextCall, upstreamRequestId: string | null): Promise<never> {
  await releaseReservation(deps.meter, call);
  throw new GatewayError(
    'upstream_error',
    'The upstream answered without a result or usage; nothing was charged',
    upstreamRequestId ? { upstreamRequestId } : {},
  );
}

/** Streaming: start the upstream stream (errors before its first byte are ordinary errors). */
export function startTextStream(
  deps: TextDeps,
  call: TextCall,
  r: ResolvedModel,
  cap: TextCapability,
  treq: TextRequest,
  o: Omit<CallOptions, 'target'>,
): Promise<StreamResult> {
  // A reserved stream is settled (or released) at its end by chargeStream.
  return run(deps, call, r, (opts) => cap.stream(treq, opts), o).then((s) => {
    if (s.upstreamRequestId) call.state.upstreamRequestId = s.upstreamRequestId;
    return s;
  });
}

/**
 * The end of an accepted stream, however it ended: metered once — by the upstream's reported usage if it arrived,
 * otherwise by the estimate of the request's input and the output produced. Returns what it was metered by.
 */
export function chargeStream(
  deps: TextDeps,
  call: TextCall,
  r: ResolvedModel,
  s: StreamResult,
  clientLeft: boolean,
): StreamCharge {
  const reported = s.usage();
  // The upstream ended the stream with no output and no usage: no result, no charge. A client that leaves is
  // charged for what the upstream processed (the input estimate at least).
  if (reported === null && s.producedChars() === 0 && !clientLeft)
    return { by: 'nothing produced', committed: releaseReservation(deps.meter, call) };
  const charged = chargeTokens(
    deps.meter,
    call,
    r,
    reported ?? estimateUsage(inputSize(call.body), s.producedChars()),
    reported === null,
    s.upstreamRequestId,
    true,
  );
  const by = reported ? 'upstream usage' : 'estimate';
  if (charged === undefined) return { by };
  return { by, committed: charged.catch((e: unknown) => call.log.error({ err: String(e) }, 'stream charge failed')) };
}

export interface StreamCharge {
  by: 'upstream usage' | 'estimate' | 'nothing produced';
  /** For a reserved call: resolves once its settlement (or release) is committed. */
  committed?: Promise<void>;
}
