// Synchronous rate limits as a real account enforces them (upstream-protocols.md §1 "Synchronous rate limits", §7).
// DashScope: per account (over every key of it) and upstream model, requests per minute and tokens per minute, and
// the same per second (RPM/60, TPM/60, rounded up) so a burst inside one minute is refused under the minute's total.
// Kling: creations per minute on its one account (query and list calls take none: "the system sets no QPS limit").
//
// The model of a call's tokens: admitted while the windows are under their limits, a call counts its input estimate
// (its body's characters / 4) at once; its handler then corrects that to the usage it reports (images report none, so
// they count nothing). A refused call counts nothing. Windows slide: the last 60 s in 1 s steps, the last second in
// 50 ms steps. A minute's limit answers with its own code; a per-second one with the burst protection's.
// [I] No Retry-After: the upstream's documents name none for these answers, so none is invented here.
import type { ServerResponse } from 'node:http';
import { dashscopeAccountOf } from './auth.ts';
import type { SimContext } from './context.ts';
import { requestId, sendJson } from './http-util.ts';
import { RateWindow } from './rate-window.ts';
import type { SimRequest } from './router.ts';
import { compatError, nativeError } from './dashscope/errors.ts';
import { klingErr } from './kling/envelope.ts';

/** A small account: a few hundred requests a minute per model, and tokens to match. */
export const DEFAULT_SYNC_RPM = 300;
export const DEFAULT_SYNC_TPM = 300_000;
/** Kling creations per minute on the simulated account. */
export const DEFAULT_KLING_RPM = 60;

export type LimitKind = 'requests' | 'tokens' | 'burst';

/** What the simulator counted for one account × model, for tests. */
export interface RateBook {
  readonly minute: RateWindow;
  readonly second: RateWindow;
  /** Calls admitted. */
  admitted: number;
  /** Calls refused, by the limit that refused them. */
  refused: Record<LimitKind, number>;
}

type Shape = 'compat' | 'native' | 'anthropic';

/** The synchronous DashScope endpoints the simulator serves, with the error shape each answers in. */
const SYNC_PATHS: ReadonlyMap<string, Shape> = new Map([
  ['/compatible-mode/v1/chat/completions', 'compat'],
  ['/compatible-mode/v1/embeddings', 'compat'],
  ['/api/v2/apps/protocols/compatible-mode/v1/responses', 'compat'],
  ['/apps/anthropic/v1/messages', 'anthropic'],
  ['/api/v1/services/aigc/multimodal-generation/generation', 'native'],
  ['/api/v1/services/aigc/text-generation/generation', 'native'],
]);

const NATIVE: Record<LimitKind, readonly [code: string, message: string]> = {
  requests: ['Throttling.RateQuota', 'Requests rate limit exceeded, please try again later.'],
  tokens: ['Throttling.AllocationQuota', 'Allocated quota exceeded, please increase your quota limit.'],
  // [I] the words after the comma
  burst: [
    'Throttling.BurstRate',
    'Request rate increased too quickly, please reduce your request rate and try again later.',
  ],
};

const COMPAT: Record<LimitKind, readonly [code: string, message: string]> = {
  requests: ['limit_requests', 'You exceeded your current requests list.'],
  tokens: ['insufficient_quota', 'You exceeded your current quota, please check your plan and billing details.'],
  // [I] the compatible mode's code for the burst protection
  burst: [
    'limit_burst_rate',
    'Request rate increased too quickly, please reduce your request rate and try again later.',
  ],
};

const KEY = 'rate-limits';

/** The books by `<account> <model>` (Kling's: `kling *`). */
export function rateLimitStats(ctx: SimContext): Map<string, RateBook> {
  let m = ctx.state.get(KEY) as Map<string, RateBook> | undefined;
  if (!m) ctx.state.set(KEY, (m = new Map()));
  return m;
}

function bookOf(ctx: SimContext, key: string): RateBook {
  const all = rateLimitStats(ctx);
  let b = all.get(key);
  if (!b)
    all.set(
      key,
      (b = {
        minute: new RateWindow(60_000, 1_000),
        second: new RateWindow(1_000, 50),
        admitted: 0,
        refused: { requests: 0, tokens: 0, burst: 0 },
      }),
    );
  return b;
}

/** A model's limits on every account (0 = none). */
export function modelLimits(ctx: SimContext, model: string): { rpm: number; tpm: number } {
  const o = ctx.opts.dashscopeModelLimits[model];
  return { rpm: o?.rpm ?? ctx.opts.dashscopeRpm, tpm: o?.tpm ?? ctx.opts.dashscopeTpm };
}

/** The limit a call would go over now, or null when it may go. */
function over(b: RateBook, rpm: number, tpm: number, now: number, perSecond: boolean): LimitKind | null {
  const m = b.minute.sums(now);
  if (rpm > 0 && m.requests >= rpm) return 'requests';
  if (tpm > 0 && m.tokens >= tpm) return 'tokens';
  if (!perSecond) return null;
  const s = b.second.sums(now);
  if (rpm > 0 && s.requests >= Math.ceil(rpm / 60)) return 'burst';
  if (tpm > 0 && s.tokens >= Math.ceil(tpm / 60)) return 'burst';
  return null;
}

function refuse(res: ServerResponse, shape: Shape, kind: LimitKind): void {
  if (shape === 'compat') {
    const [code, message] = COMPAT[kind];
    return compatError(res, 429, code, message, code);
  }
  const [code, message] = NATIVE[kind];
  if (shape === 'anthropic')
    return sendJson(res, 429, { type: 'error', error: { type: 'rate_limit_error', message }, request_id: requestId() });
  nativeError(res, 429, code, message);
}

/**
 * Refuse a call over its account's limits (answered here, 429 in the endpoint's shape; the caller stops); false when
 * it may go, counted, with `req.settleTokens` set for its handler. Calls these limits do not cover pass untouched.
 */
export function refuseOverRate(ctx: SimContext, req: SimRequest, res: ServerResponse): boolean {
  if (req.method !== 'POST') return false;
  if (req.path.startsWith('/v1/videos/')) return refuseKling(ctx, res);
  const shape = SYNC_PATHS.get(req.path);
  const model = (req.json as { model?: unknown } | undefined)?.model;
  // A call without a model is the handler's to refuse.
  if (shape === undefined || typeof model !== 'string' || model === '') return false;
  const { rpm, tpm } = modelLimits(ctx, model);
  if (rpm <= 0 && tpm <= 0) return false;
  const book = bookOf(ctx, `${dashscopeAccountOf(req.req, ctx.opts.dashscopeKeys)} ${model}`);
  const now = ctx.opts.now();
  const kind = over(book, rpm, tpm, now, true);
  if (kind) {
    book.refused[kind] += 1;
    refuse(res, shape, kind);
    return true;
  }
  const estimate = Math.ceil(req.raw.length / 4);
  book.admitted += 1;
  book.minute.add(now, estimate);
  book.second.add(now, estimate);
  let settled = false;
  req.settleTokens = (used) => {
    if (settled || !Number.isFinite(used)) return;
    settled = true;
    const later = ctx.opts.now();
    book.minute.correct(now, used - estimate, later);
    book.second.correct(now, used - estimate, later);
  };
  return false;
}

const isLimit = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 0;

/**
 * Change the limits while the simulator runs (`POST /__sim/rate-limits {"rpm", "tpm", "kling_rpm", "models":
 * {"<model>": {"rpm", "tpm"}}}`, each optional; a model given replaces its overrides): null, or why the body was
 * refused.
 */
export function setRateLimits(ctx: SimContext, body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return 'the body must be a JSON object';
  const b = body as { rpm?: unknown; tpm?: unknown; kling_rpm?: unknown; models?: unknown };
  for (const k of ['rpm', 'tpm', 'kling_rpm'] as const)
    if (b[k] !== undefined && !isLimit(b[k])) return `${k} must be an integer >= 0 (0 = no limit)`;
  const models = b.models === undefined ? {} : b.models;
  if (typeof models !== 'object' || models === null) return 'models must be an object';
  for (const [m, v] of Object.entries(models)) {
    const o = v as { rpm?: unknown; tpm?: unknown } | null;
    if (
      typeof o !== 'object' ||
      o === null ||
      Object.keys(o).some((k) => k !== 'rpm' && k !== 'tpm') ||
      [o.rpm, o.tpm].some((n) => n !== undefined && !isLimit(n))
    )
      return `models.${m} takes only rpm and tpm, each an integer >= 0`;
  }
  if (isLimit(b.rpm)) ctx.opts.dashscopeRpm = b.rpm;
  if (isLimit(b.tpm)) ctx.opts.dashscopeTpm = b.tpm;
  if (isLimit(b.kling_rpm)) ctx.opts.klingRpm = b.kling_rpm;
  Object.assign(ctx.opts.dashscopeModelLimits, models);
  return null;
}

function refuseKling(ctx: SimContext, res: ServerResponse): boolean {
  const rpm = ctx.opts.klingRpm;
  if (rpm <= 0) return false;
  const book = bookOf(ctx, 'kling *');
  const now = ctx.opts.now();
  if (over(book, rpm, 0, now, false)) {
    book.refused.requests += 1;
    // [I] Kling's words for its rate limit
    klingErr(res, 429, 1302, 'API request rate exceeded, please reduce the request frequency.');
    return true;
  }
  book.admitted += 1;
  book.minute.add(now, 0);
  return false;
}
