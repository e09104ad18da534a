// One page of DashScope's model quota list (GET /api/v1/quotas) → each model's requests and tokens per minute.
// Fields as Model Studio's "List model quotas" page describes them (upstream-protocols.md §1, S11):
// output.{total, page_no, page_size, quotas[]}, each {model, workspace_id, model_limit, workspace_limit}, a limit
// {request_limit, request_limit_period (s: 60 per minute, 1 per second), usage_limit, usage_limit_field (total_tokens),
// usage_limit_period}. Read tolerantly, since the endpoint is young: the list also under `data` or `quotas`, flat
// rpm/tpm/qps fields, numbers written as strings. A per-second figure is ×60; a workspace limit below the account's
// is the one the key meets.
import { isObject, type JsonObject } from '../../json/json.ts';
import type { UpstreamModelLimits } from '../types.ts';

export interface QuotaPage {
  /** Each model's limits on this page (a model listed twice keeps the smaller of each). */
  readonly entries: ReadonlyArray<readonly [model: string, limits: UpstreamModelLimits]>;
  /** Models over all pages, when the answer says. */
  readonly total: number | null;
  /** The page size the answer was cut to, when it says (it may be smaller than asked). */
  readonly pageSize: number | null;
}

/** A positive finite number, also from a numeric string; null otherwise. */
function num(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  return Number.isFinite(n) && n > 0 ? n : null;
}

/** A count over `periodS` seconds as a count per minute (period 60 when unstated). */
function perMinute(value: unknown, periodS: unknown): number | null {
  const v = num(value);
  if (v === null) return null;
  return (v * 60) / (num(periodS) ?? 60);
}

function requestsPerMinute(o: JsonObject): number | null {
  if (o.request_limit !== undefined && o.request_limit !== null)
    return perMinute(o.request_limit, o.request_limit_period);
  const rpm = num(o.rpm ?? o.RPM);
  if (rpm !== null) return rpm;
  const qps = num(o.qps ?? o.QPS ?? o.rps ?? o.RPS);
  return qps === null ? null : qps * 60;
}

function tokensPerMinute(o: JsonObject): number | null {
  if (o.usage_limit !== undefined && o.usage_limit !== null) {
    // A usage limit of something other than tokens (e.g. images) is no token limit.
    const field = o.usage_limit_field;
    if (typeof field === 'string' && !/token/i.test(field)) return null;
    return perMinute(o.usage_limit, o.usage_limit_period);
  }
  const tpm = num(o.tpm ?? o.TPM);
  if (tpm !== null) return tpm;
  const tps = num(o.tps ?? o.TPS);
  return tps === null ? null : tps * 60;
}

const smaller = (a: number | null, b: number | null): number | null =>
  a === null ? b : b === null ? a : Math.min(a, b);

function limitsOf(item: JsonObject): UpstreamModelLimits {
  const sources = [item.model_limit, item.workspace_limit].filter(isObject);
  let rpm: number | null = null;
  let tpm: number | null = null;
  for (const o of sources.length > 0 ? sources : [item]) {
    rpm = smaller(rpm, requestsPerMinute(o));
    tpm = smaller(tpm, tokensPerMinute(o));
  }
  return { rpm, tpm };
}

function listOf(json: JsonObject): unknown[] | null {
  const out = json.output;
  if (Array.isArray(out)) return out;
  for (const v of [
    isObject(out) ? out.quotas : undefined,
    isObject(out) ? out.data : undefined,
    json.quotas,
    json.data,
  ])
    if (Array.isArray(v)) return v;
  return null;
}

/** The page's models and limits; null when the answer has no list of quotas at all. */
export function parseQuotaPage(json: unknown): QuotaPage | null {
  if (!isObject(json)) return null;
  const list = listOf(json);
  if (list === null) return null;
  const entries: Array<[string, UpstreamModelLimits]> = [];
  for (const item of list) {
    if (!isObject(item)) continue;
    const model = item.model ?? item.model_name ?? item.model_id;
    if (typeof model === 'string' && model !== '') entries.push([model, limitsOf(item)]);
  }
  const meta = isObject(json.output) ? json.output : json;
  return { entries, total: num(meta.total), pageSize: num(meta.page_size) };
}

/** Add a page's entries to `into`, a model seen before keeping the smaller of each limit. */
export function mergeLimits(into: Map<string, UpstreamModelLimits>, entries: QuotaPage['entries']): void {
  for (const [model, l] of entries) {
    const had = into.get(model);
    into.set(model, had ? { rpm: smaller(had.rpm, l.rpm), tpm: smaller(had.tpm, l.tpm) } : l);
  }
}
