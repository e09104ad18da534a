import type { FastifyInstance } from 'fastify';
import { qEnum, qOnly, qString, type Query } from '../../../contracts/query.ts';
import { billCsv, billDocument, billLines } from '../../../core/admin/bills.ts';
import type { GatewayDeps } from '../../../core/deps.ts';
import { timeRange } from './ledger.ts';

/**
 * GET /admin/bills?token_id=&model=&period=day|month&since=&until=&format=json|csv
 * Totals per token per UTC day or month, from the ledger (core/admin/bills.ts).
 */
export function registerBillRoutes(scope: FastifyInstance, deps: GatewayDeps): void {
  scope.get<{ Querystring: Query }>('/bills', async (req, reply) => {
    const q = req.query;
    qOnly(q, ['token_id', 'model', 'period', 'since', 'until', 'format']);
    const period = qEnum(q, 'period', ['day', 'month'] as const, 'month');
    const format = qEnum(q, 'format', ['json', 'csv'] as const, 'json');
    const lines = await billLines(deps, { tokenId: qString(q, 'token_id'), model: qString(q, 'model'), ...timeRange(q) }, period);
    if (format === 'json') return billDocument(period, lines);
    return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="tollway-bill-${period}.csv"`).send(billCsv(lines));
  });
}
