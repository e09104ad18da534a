import type { FastifyReply } from 'fastify';
import { decodeCursor } from '../../../contracts/cursor.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import { qEnum, qInt, qOnly, qString, qTime, type Query } from '../../../contracts/query.ts';
import { ledgerCsv, ledgerPage, type Page } from '../../../core/admin/lists.ts';
import { fastifyRoute } from '../../front/route-row.ts';

export function timeRange(q: Query): { since?: number; until?: number } {
  const since = qTime(q, 'since');
  const until = qTime(q, 'until');
  if (since !== undefined && until !== undefined && until < since)
    throw new GatewayError('invalid_parameter', 'until must not be before since', { param: 'until' });
  return { ...(since !== undefined ? { since } : {}), ...(until !== undefined ? { until } : {}) };
}

/** A list page as JSON, or as a CSV download whose next page is named in the X-Next-Cursor header. */
export function sendList<T>(
  reply: FastifyReply,
  format: 'json' | 'csv',
  filename: string,
  page: Page<T>,
  toCsv: (rows: T[]) => string,
): unknown {
  if (format === 'json') return page;
  if (page.next_cursor !== undefined) reply.header('x-next-cursor', page.next_cursor);
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .send(toCsv(page.data));
}

const PARAMS = [
  'token_id',
  'model',
  'request_id',
  'task_id',
  'since',
  'until',
  'limit',
  'cursor',
  'before_id',
  'format',
] as const;

/**
 * GET /admin/ledger?token_id=&model=&request_id=&task_id=&since=&until=&limit=&cursor=&format=json|csv
 * Newest first (by id: a stable order), paged by `cursor` (before_id= is the same position, kept for old clients).
 * `since` is inclusive, `until` exclusive. Queued deferred charges are flushed first, so an operator read sees every
 * call that has already been answered.
 */
export const ledger = fastifyRoute<{ Querystring: Query }>(({ deps }) => async (req, reply) => {
  const q = req.query;
  qOnly(q, PARAMS);
  const cursor = qString(q, 'cursor', 400);
  const beforeId =
    cursor === undefined
      ? qInt(q, 'before_id', 1, Number.MAX_SAFE_INTEGER)
      : (decodeCursor(cursor, ['n'])[0] as number);
  const format = qEnum(q, 'format', ['json', 'csv'] as const, 'json');
  const filter = {
    tokenId: qString(q, 'token_id'),
    model: qString(q, 'model'),
    requestId: qString(q, 'request_id'),
    taskId: qString(q, 'task_id'),
    beforeId,
    ...timeRange(q),
    limit: qInt(q, 'limit', 1, 1000, 100)!,
  };
  await deps.meter.flush();
  return sendList(reply, format, 'tollway-ledger.csv', await ledgerPage(deps.repos.ledger, filter), ledgerCsv);
});
