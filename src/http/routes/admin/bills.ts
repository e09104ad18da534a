import { qEnum, qOnly, qString, type Query } from '../../../contracts/query.ts';
import { accountBillCsv, accountBillDocument, accountBillLines } from '../../../core/admin/account-bills.ts';
import {
  BILL_PERIODS,
  billByModelDocument,
  billCsv,
  billDocument,
  billLines,
  billModelCsv,
} from '../../../core/admin/bills.ts';
import { fastifyRoute } from '../../front/route-row.ts';
import { timeRange } from './ledger.ts';

/**
 * GET /admin/bills?token_id=&account_id=&model=&period=day|week|month&since=&until=&format=json|csv&by=token|model|account
 * Totals per token per period in the account's time zone, from the ledger (core/admin/bills.ts); by=model: per model;
 * by=account: a line per account (core/admin/account-bills.ts).
 */
export const bills = fastifyRoute<{ Querystring: Query }>(({ deps }) => async (req, reply) => {
  const q = req.query;
  qOnly(q, ['token_id', 'account_id', 'model', 'period', 'since', 'until', 'format', 'by']);
  const period = qEnum(q, 'period', BILL_PERIODS, 'month');
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
    const bill = await accountBillLines(deps, filter, period);
    return format === 'json'
      ? accountBillDocument(period, bill)
      : csv(`tollway-bill-${period}-by-account.csv`, accountBillCsv(bill.lines));
  }
  const byModel = by === 'model';
  const bill = await billLines(deps, filter, period);
  if (format === 'json') return byModel ? billByModelDocument(period, bill) : billDocument(period, bill);
  const name = `tollway-bill-${period}${byModel ? '-by-model' : ''}.csv`;
  return csv(name, byModel ? billModelCsv(bill.lines) : billCsv(bill.lines));
});
