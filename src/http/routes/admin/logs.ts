import { fastifyRoute } from '../../front/route-row.ts';
import { decodeCursor } from '../../../contracts/cursor.ts';
import { qEnum, qInt, qOnly, qString, type Query } from '../../../contracts/query.ts';
import { requestLogCsv, requestLogPage } from '../../../core/admin/lists.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import type { StatusFilter } from '../../../store/repos/request-log.ts';
import { sendList, timeRange } from './ledger.ts';

const PARAMS = ['request_id', 'token_id', 'model', 'status', 'since', 'until', 'limit', 'cursor', 'format'] as const;

/** `status=429` (one status) or `status=4xx` (a class). */
function statusOf(q: Query): StatusFilter | undefined {
  const v = qString(q, 'status', 3);
  if (v === undefined) return undefined;
  if (/^[1-5]\d\d$/.test(v)) return { exact: Number(v) };
  if (/^[1-5]xx$/i.test(v)) return { hundreds: Number(v[0]) };
  throw new GatewayError('invalid_parameter', 'status must be an HTTP status (e.g. 429) or a class (e.g. 5xx)', {
    param: 'status',
  });
}

/**
 * GET /admin/logs?request_id=&token_id=&model=&status=&since=&until=&limit=&cursor=&format=json|csv
 * The per-request log (token, model, endpoint, status, latency, time to first byte, the channel that answered and
 * every upstream attempt, usage, amount), newest first, paged by an opaque cursor. `amount` is what the request path
 * computed; the ledger stays the billing authority.
 */
export const logs = fastifyRoute<{ Querystring: Query }>(({ deps }) => async (req, reply) => {
  const q = req.query;
  qOnly(q, PARAMS);
  const cursor = qString(q, 'cursor', 400);
  const after = cursor === undefined ? undefined : decodeCursor(cursor, ['n', 's']);
  const format = qEnum(q, 'format', ['json', 'csv'] as const, 'json');
  const filter = {
    requestId: qString(q, 'request_id'),
    tokenId: qString(q, 'token_id'),
    model: qString(q, 'model'),
    status: statusOf(q),
    ...timeRange(q),
    ...(after ? { after: { createdAt: after[0] as number, id: after[1] as string } } : {}),
    limit: qInt(q, 'limit', 1, 1000, 100)!,
  };
  // Request-log rows are group-committed too: make the ones already answered visible.
  await deps.requestLog.flush();
  return sendList(
    reply,
    format,
    'tollway-request-log.csv',
    await requestLogPage(deps.repos.requestLog, filter),
    requestLogCsv,
  );
});
