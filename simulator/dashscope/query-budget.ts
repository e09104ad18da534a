// What a real Alibaba Cloud account enforces on task queries: 20 per second (ctx.opts.dashscopeQueryQps), counted per
// account over every key of it, single queries and list queries alike. Over it: HTTP 429 Throttling.RateQuota.
// The counts are kept for tests: a gateway that keeps the budget is never throttled.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dashscopeAccountOf } from '../auth.ts';
import type { SimContext } from '../context.ts';
import { nativeError } from './errors.ts';

export interface AccountQueryStats {
  /** Task queries answered (single and list). */
  queries: number;
  /** Single task queries answered. */
  single: number;
  /** List queries answered. */
  lists: number;
  /** Queries refused with 429 Throttling.RateQuota. */
  throttled: number;
  /** The most queries answered within any one second. */
  peakPerSecond: number;
  /** Times of the answered queries within the last second. */
  window: number[];
}

const KEY = 'dashscope-query-budget';

export function dashscopeQueryStats(ctx: SimContext): Map<string, AccountQueryStats> {
  let m = ctx.state.get(KEY) as Map<string, AccountQueryStats> | undefined;
  if (!m) {
    m = new Map();
    ctx.state.set(KEY, m);
  }
  return m;
}

/** Count one task query against the account's budget; answers 429 and returns false when it is spent. */
export function takeQuery(
  ctx: SimContext,
  req: IncomingMessage,
  res: ServerResponse,
  kind: 'single' | 'list',
): boolean {
  const account = dashscopeAccountOf(req, ctx.opts.dashscopeKeys);
  const all = dashscopeQueryStats(ctx);
  let s = all.get(account);
  if (!s) {
    s = { queries: 0, single: 0, lists: 0, throttled: 0, peakPerSecond: 0, window: [] };
    all.set(account, s);
  }
  const now = Date.now();
  while (s.window.length > 0 && s.window[0]! <= now - 1000) s.window.shift();
  const qps = ctx.opts.dashscopeQueryQps;
  if (qps > 0 && s.window.length >= qps) {
    s.throttled += 1;
    nativeError(res, 429, 'Throttling.RateQuota', 'Requests rate limit exceeded, please try again later.');
    return false;
  }
  s.window.push(now);
  s.peakPerSecond = Math.max(s.peakPerSecond, s.window.length);
  s.queries += 1;
  if (kind === 'single') s.single += 1;
  else s.lists += 1;
  return true;
}
