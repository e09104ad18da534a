import { qEnum, qOnly, qString, type Query } from '../../../contracts/query.ts';
import { accountBillCsv, accountBillDocument, accountBillLines } from '../../../core/admin/account-bills.ts';
import { billByModelDocument, billCsv, billDocument, billLines, billModelCsv } from '../../../core/admin/bills.ts';
import { fastifyRoute } from '../../front/route-row.ts';
import { timeRange } from './ledger.ts';

/**
 * GET /admin/bills?token_id=&account_id=&model=&period=day|month&since=&until=&format=json|csv&by=token|model|account
 * Totals per token per UTC day or month, from the ledger (core/admin/bills.ts); by=model: a line per model;
 * by=account: a line per account (core/admin/account-bills.ts).
 */
export const bills = fastifyRoute<{ Querystring: Query }>(({ deps }) => async (req, reply) => {
  const q = req.query;
  qOnly(q, ['token_id', 'account_id', 'model', 'period', 'since', 'until', 'format', 'by']);
  const period = qEnum(q, 'period', ['day', 'month'] as const, 'month');
  const format = qEnum(q, 'format', ['json', 'csv'] as const, 'json');
  const by = qEnum(q, 'by', ['token', 'model', 'account'] as const, 'token');
  const filter = {
    tokenId: qString(q, 'token_id'),
    accountId: qString(q, 'account_id'),
    model: qString(q, 'model'),
    ...timeRange(q),
  };
  const csv = (name: string, body: string) => {
    const disposition = `attachment; filename="${name}"`;
    return reply.type('text/csv; charset=utf-8').header('content-disposition', disposition).send(body);
  };
  if (by === 'account') {
    const lines = await accountBillLines(deps, filter, period);
    return format === 'json'
      ? accountBillDocument(period, lines)
      : csv(`tollway-bill-${period}-by-account.csv`, accountBillCsv(lines));
  }
  const byModel = by === 'model';
  const lines = await billLines(deps, filter, period);
  if (format === 'json') return byModel ? billByModelDocument(period, lines) : billDocument(period, lines);
  return csv(`tollway-bill-${period}${byModel ? '-by-model' : ''}.csv`, byModel ? billModelCsv(lines) : billCsv(lines));
});
