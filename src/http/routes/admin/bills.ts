import type { FastifyInstance } from 'fastify';
import { qEnum, qOnly, qString, type Query } from '../../../contracts/query.ts';
import { billByModelDocument, billCsv, billDocument, billLines, billModelCsv } from '../../../core/admin/bills.ts';
import type { GatewayDeps } from '../../../core/deps.ts';
import { timeRange } from './ledger.ts';

/**
 * GET /admin/bills?token_id=&model=&period=day|month&since=&until=&format=json|csv&by=token|model
 * Totals per token per UTC day or month, from the ledger (core/admin/bills.ts); by=model: a line per model.
 */
export function registerBillRoutes(scope: FastifyInstance, deps: GatewayDeps): void {
  scope.get<{ Querystring: Query }>('/bills', async (req, reply) => {
    const q = req.query;
    qOnly(q, ['token_id', 'model', 'period', 'since', 'until', 'format', 'by']);
    const period = qEnum(q, 'period', ['day', 'month'] as const, 'month');
    const format = qEnum(q, 'format', ['json', 'csv'] as const, 'json');
    const byModel = qEnum(q, 'by', ['token', 'model'] as const, 'token') === 'model';
    const lines = await billLines(deps, { tokenId: qString(q, 'token_id'), model: qString(q, 'model'), ...timeRange(q) }, period);
    if (format === 'json') return byModel ? billByModelDocument(period, lines) : billDocument(period, lines);
    const name = `tollway-bill-${period}${byModel ? '-by-model' : ''}.csv`;
    return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${name}"`).send(byModel ? billModelCsv(lines) : billCsv(lines));
  });
}
