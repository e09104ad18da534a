import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../../errors/gateway-error.ts';
import { LedgerRepo } from '../../../store/repos/ledger.ts';
import type { AppDeps } from '../../deps.ts';

export type Query = Record<string, string | string[] | undefined>;

/** A single-valued string query parameter (repeated → 400). */
export function qString(q: Query, key: string, max = 200): string | undefined {
  const v = q[key];
  if (v === undefined || v === '') return undefined;
  if (Array.isArray(v)) throw new GatewayError('invalid_parameter', `${key} must be given once`, { param: key });
  if (v.length > max) throw new GatewayError('invalid_parameter', `${key} must be at most ${max} characters`, { param: key });
  return v;
}

/** A time bound: integer milliseconds since the epoch, or an ISO 8601 date/date-time (UTC unless it says). */
export function qTime(q: Query, key: string): number | undefined {
  const v = qString(q, key, 64);
  if (v === undefined) return undefined;
  if (/^\d{1,16}$/.test(v)) return Number(v);
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v)) {
    const withZone = /^\d{4}-\d{2}-\d{2}$/.test(v) || /(Z|[+-]\d{2}:?\d{2})$/.test(v) ? v : `${v}Z`;
    const t = Date.parse(withZone);
    if (Number.isFinite(t)) return t;
  }
  throw new GatewayError('invalid_parameter', `${key} must be milliseconds since the epoch or an ISO 8601 date (e.g. 2026-01-31 or 2026-01-31T12:00:00Z)`, { param: key });
}

export function qInt(q: Query, key: string, min: number, max: number, def?: number): number | undefined {
  const v = qString(q, key, 20);
  if (v === undefined) return def;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new GatewayError('invalid_parameter', `${key} must be an integer between ${min} and ${max}`, { param: key });
  }
  return Number(v);
}

export function qEnum<T extends string>(q: Query, key: string, values: readonly T[], def: T): T {
  const v = qString(q, key, 20);
  if (v === undefined) return def;
  if (!(values as readonly string[]).includes(v)) throw new GatewayError('invalid_parameter', `${key} must be one of ${values.join(', ')}`, { param: key });
  return v as T;
}

export function timeRange(q: Query): { since?: number; until?: number } {
  const since = qTime(q, 'since');
  const until = qTime(q, 'until');
  if (since !== undefined && until !== undefined && until < since) throw new GatewayError('invalid_parameter', 'until must not be before since', { param: 'until' });
  return { ...(since !== undefined ? { since } : {}), ...(until !== undefined ? { until } : {}) };
}

/**
 * GET /admin/ledger?token_id=&model=&request_id=&task_id=&since=&until=&limit=&before_id=
 * Newest first. `since` is inclusive, `until` exclusive. Queued deferred charges are flushed first, so an
 * operator read sees every call that has already been answered.
 */
export function registerLedgerRoutes(scope: FastifyInstance, deps: AppDeps): void {
  const repo = new LedgerRepo(deps.store.db);
  scope.get<{ Querystring: Query }>('/ledger', async (req) => {
    const q = req.query;
    const limit = qInt(q, 'limit', 1, 1000, 100)!;
    const filter = {
      tokenId: qString(q, 'token_id'),
      model: qString(q, 'model'),
      requestId: qString(q, 'request_id'),
      taskId: qString(q, 'task_id'),
      beforeId: qInt(q, 'before_id', 1, Number.MAX_SAFE_INTEGER),
      ...timeRange(q),
      limit,
    };
    await deps.meter.flush();
    const data = await repo.list(filter);
    return { data, has_more: data.length === limit, ...(data.length === limit ? { next_before_id: data[data.length - 1]!.id } : {}) };
  });
}
