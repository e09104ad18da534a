// GET /api/v1/quotas?model=&name=&page_no=&page_size=: the rate limits of each model under the key, with the values
// the simulator enforces (rate-limits.ts). Fields as Model Studio's "List model quotas" page lists them
// (upstream-protocols.md §1, S11): output.{total, page_no, page_size, quotas[]}, each quota
// {model, workspace_id, model_limit, workspace_limit}, a limit {request_limit, request_limit_period (s: 60 = per
// minute, 1 = per second), usage_limit, usage_limit_field, usage_limit_period, async_user_queue_limit,
// async_user_concurrency_limit}. [I] The values of the async fields, and the largest page_size (100 here).
import { dashscopeAccountOf } from '../auth.ts';
import type { SimContext } from '../context.ts';
import { requestId, sendJson } from '../http-util.ts';
import { modelLimits } from '../rate-limits.ts';
import type { SimRouter } from '../router.ts';
import { SIM_DASHSCOPE_MODELS } from './compat-models.ts';
import { nativeError } from './errors.ts';

export const QUOTAS_PATH = '/api/v1/quotas';
const MAX_PAGE_SIZE = 100;

const positive = (n: number): number | null => (n > 0 ? n : null);

function quotaOf(ctx: SimContext, model: string, account: string): Record<string, unknown> {
  const { rpm, tpm } = modelLimits(ctx, model);
  return {
    model,
    workspace_id: `ws-sim-${account}`,
    model_limit: {
      request_limit: positive(rpm),
      request_limit_period: 60,
      usage_limit: positive(tpm),
      usage_limit_field: 'total_tokens',
      usage_limit_period: 60,
      async_user_queue_limit: null,
      async_user_concurrency_limit: null,
    },
    workspace_limit: null,
  };
}

/** A query parameter as a whole number ≥ 1, its default when absent; null when given but not one. */
function pageParam(v: string | null, dflt: number): number | null {
  if (v === null || v === '') return dflt;
  return /^\d+$/.test(v) && Number(v) >= 1 ? Number(v) : null;
}

export function registerQuotas(router: SimRouter, ctx: SimContext): void {
  router.on('GET', QUOTAS_PATH, (req, res) => {
    const pageNo = pageParam(req.query.get('page_no'), 1);
    const pageSize = pageParam(req.query.get('page_size'), 20);
    if (pageNo === null) return nativeError(res, 400, 'InvalidParameter', 'page_no must be an integer >= 1.');
    if (pageSize === null || pageSize > MAX_PAGE_SIZE)
      return nativeError(res, 400, 'InvalidParameter', `page_size must be an integer in [1, ${MAX_PAGE_SIZE}].`);
    const exact = req.query.get('model');
    const fuzzy = req.query.get('name')?.toLowerCase();
    const models = [...new Set([...SIM_DASHSCOPE_MODELS, ...Object.keys(ctx.opts.dashscopeModelLimits)])].filter(
      (m) => (!exact || m === exact) && (!fuzzy || m.toLowerCase().includes(fuzzy)),
    );
    const account = dashscopeAccountOf(req.req, ctx.opts.dashscopeKeys);
    const page = models.slice((pageNo - 1) * pageSize, pageNo * pageSize).map((m) => quotaOf(ctx, m, account));
    sendJson(res, 200, {
      request_id: requestId(),
      output: { total: models.length, page_no: pageNo, page_size: pageSize, quotas: page },
    });
  });
}
