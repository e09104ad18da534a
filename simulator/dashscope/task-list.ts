// `GET /api/v1/tasks`: the account's tasks, newest first, filtered by status, model and creation time, one page at a
// time. Items carry `status` (not `task_status`) and no result: a finished task still needs its own query.
import type { ServerResponse } from 'node:http';
import { dashscopeAccountOf } from '../auth.ts';
import type { SimContext } from '../context.ts';
import { requestId, sendJson } from '../http-util.ts';
import type { SimRequest, SimRouter } from '../router.ts';
import { takeQuery } from './query-budget.ts';
import { nativeError } from './errors.ts';
import { dashscopeTaskStore, fmt, statusOf, type DashscopeTaskStatus } from './tasks.ts';

const STATUSES: readonly string[] = ['PENDING', 'RUNNING', 'SUSPENDED', 'SUCCEEDED', 'FAILED', 'CANCELED'];
/** The largest page the simulator serves (the real maximum is not documented). */
export const MAX_PAGE_SIZE = 100;

/** `YYYYMMDDhhmmss` in Beijing time (as the API shows times) → ms; null when malformed. */
export function parseListTime(v: string): number | null {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(v);
  if (!m) return null;
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  return Date.UTC(y, mo - 1, d, h, mi, s) - 8 * 3600_000;
}

function bad(res: ServerResponse, message: string): void {
  nativeError(res, 400, 'InvalidParameter', message);
}

export function listTasks(ctx: SimContext, req: SimRequest, res: ServerResponse): void {
  const q = req.query;
  const int = (name: string, def: number, max: number): number | null => {
    const raw = q.get(name);
    if (raw === null || raw === '') return def;
    const n = Number(raw);
    return /^\d+$/.test(raw) && n >= 1 && n <= max ? n : null;
  };
  const pageNo = int('page_no', 1, 1_000_000);
  const pageSize = int('page_size', 10, MAX_PAGE_SIZE);
  if (pageNo === null) return bad(res, 'page_no must be a positive integer');
  if (pageSize === null) return bad(res, `page_size must be between 1 and ${MAX_PAGE_SIZE}`);
  const status = q.get('status') || null;
  if (status !== null && !STATUSES.includes(status)) return bad(res, `status must be one of ${STATUSES.join(', ')}`);
  const bound = (name: string): number | null | undefined => {
    const raw = q.get(name);
    return raw === null || raw === '' ? undefined : parseListTime(raw);
  };
  const from = bound('start_time');
  const to = bound('end_time');
  if (from === null || to === null) return bad(res, 'start_time and end_time must be YYYYMMDDhhmmss');
  const model = q.get('model_name') || null;
  const account = dashscopeAccountOf(req.req, ctx.opts.dashscopeKeys);
  const now = Date.now();
  const rows: Array<{
    id: string;
    status: DashscopeTaskStatus;
    model: string;
    createdAt: number;
    scheduledAt: number;
    finishAt: number;
  }> = [];
  for (const t of dashscopeTaskStore(ctx).values()) {
    if ((t.spec.account ?? 'main') !== account) continue;
    const st = statusOf(t, now);
    // An expired or forgotten task is not listed.
    if (st === 'UNKNOWN' || (status !== null && st !== status) || (model !== null && t.spec.model !== model)) continue;
    if ((from !== undefined && t.createdAt < from) || (to !== undefined && t.createdAt > to)) continue;
    rows.push({
      id: t.id,
      status: st,
      model: t.spec.model,
      createdAt: t.createdAt,
      scheduledAt: t.scheduledAt,
      finishAt: t.finishAt,
    });
  }
  rows.sort((a, b) => b.createdAt - a.createdAt);
  const page = rows.slice((pageNo - 1) * pageSize, pageNo * pageSize);
  // A listed task was looked at, as far as how long it went unchecked goes (its `queries` count single queries only).
  const store = dashscopeTaskStore(ctx);
  for (const r of page) {
    const t = store.get(r.id)!;
    t.maxGapMs = Math.max(t.maxGapMs, now - t.lastQueryAt);
    t.lastQueryAt = now;
  }
  const ended = (st: string) => st === 'SUCCEEDED' || st === 'FAILED' || st === 'CANCELED';
  sendJson(res, 200, {
    request_id: requestId(),
    data: page.map((r) => ({
      task_id: r.id,
      status: r.status,
      model_name: r.model,
      api_key_id: account,
      region: 'cn-beijing',
      gmt_create: fmt(r.createdAt),
      ...(r.status !== 'PENDING' ? { start_time: fmt(r.scheduledAt) } : {}),
      ...(ended(r.status) ? { end_time: fmt(r.finishAt) } : {}),
      request_id: requestId(),
    })),
    total: rows.length,
    total_page: Math.ceil(rows.length / pageSize),
    page_no: pageNo,
    page_size: pageSize,
  });
}

export function registerDashscopeTaskList(router: SimRouter, ctx: SimContext): void {
  router.on('GET', '/api/v1/tasks', (req, res) => {
    if (!takeQuery(ctx, req.req, res, 'list')) return;
    listTasks(ctx, req, res);
  });
}
