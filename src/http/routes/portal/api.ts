// /portal/api/accounts/{account}/…: what a member sees and does in their own account (core/portal/). Another
// account's id, or a token of another account, answers 404: a member never learns that it exists.
import { decodeCursor } from '../../../contracts/cursor.ts';
import { qEnum, qInt, qOnly, qString, type Query } from '../../../contracts/query.ts';
import {
  BILL_PERIODS,
  billByModelDocument,
  billCsv,
  billDocument,
  billLines,
  billModelCsv,
} from '../../../core/admin/bills.ts';
import { parseRedeem, redeemCode } from '../../../core/credit/redeem.ts';
import {
  accountToken,
  accountTokens,
  MAX_USAGE_DAYS,
  portalLogs,
  portalOverview,
  portalToken,
  portalUsage,
  sameAccount,
} from '../../../core/portal/account.ts';
import {
  createPortalToken,
  parsePortalToken,
  portalCallbackSecret,
  revokePortalToken,
  rotatePortalToken,
} from '../../../core/portal/tokens.ts';
import type { FastifyRequest } from 'fastify';
import { fastifyRoute } from '../../front/route-row.ts';
import { timeRange } from '../admin/ledger.ts';
import { memberActor, memberOf } from './session.ts';

type ByAccount = { Params: { account: string }; Querystring: Query };
type ByToken = { Params: { account: string; token: string }; Querystring: Query };

/** The member's account, when the path names it; 404 for any other. */
function own(req: FastifyRequest<{ Params: { account: string } }>): string {
  const { accountId } = memberOf(req);
  sameAccount(accountId, req.params.account);
  return accountId;
}

export const overview = fastifyRoute<ByAccount>(({ deps }) => async (req) => {
  const id = own(req);
  qOnly(req.query, []);
  return portalOverview(deps, id);
});

export const usage = fastifyRoute<ByAccount>(({ deps }) => async (req) => {
  const id = own(req);
  qOnly(req.query, ['days']);
  return portalUsage(deps, id, qInt(req.query, 'days', 1, MAX_USAGE_DAYS, 30)!);
});

/** GET …/bills?period=day|week|month&by=token|model&since=&until=&format=json|csv: the account's tokens' bill. */
export const bills = fastifyRoute<ByAccount>(({ deps }) => async (req, reply) => {
  const accountId = own(req);
  const q = req.query;
  qOnly(q, ['period', 'by', 'since', 'until', 'format']);
  const period = qEnum(q, 'period', BILL_PERIODS, 'month');
  const format = qEnum(q, 'format', ['json', 'csv'] as const, 'json');
  const byModel = qEnum(q, 'by', ['token', 'model'] as const, 'token') === 'model';
  const bill = await billLines(deps, { accountId, ...timeRange(q) }, period);
  if (format === 'json') return byModel ? billByModelDocument(period, bill) : billDocument(period, bill);
  const name = `tollway-bill-${period}${byModel ? '-by-model' : ''}.csv`;
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${name}"`)
    .send(byModel ? billModelCsv(bill.lines) : billCsv(bill.lines));
});

export const logs = fastifyRoute<ByAccount>(({ deps }) => async (req) => {
  const accountId = own(req);
  const q = req.query;
  qOnly(q, ['token_id', 'since', 'until', 'limit', 'cursor']);
  const cursor = qString(q, 'cursor', 400);
  const after = cursor === undefined ? undefined : decodeCursor(cursor, ['n', 's']);
  return portalLogs(deps, accountId, {
    tokenId: qString(q, 'token_id', 64),
    ...timeRange(q),
    after: after && { createdAt: after[0] as number, id: after[1] as string },
    limit: qInt(q, 'limit', 1, 200, 50)!,
  });
});

export const tokens = fastifyRoute<ByAccount>(({ deps }) => async (req) => {
  const accountId = own(req);
  qOnly(req.query, []);
  return { object: 'list', data: (await accountTokens(deps, accountId)).map(portalToken) };
});

export const createToken = fastifyRoute<ByAccount>(({ deps }) => async (req, reply) => {
  const accountId = own(req);
  const input = parsePortalToken(req.body);
  return reply.code(201).send(await createPortalToken(deps, memberActor(req), accountId, input));
});

export const token = fastifyRoute<ByToken>(({ deps }) => async (req) => {
  return portalToken(await accountToken(deps, own(req), req.params.token));
});

export const rotateToken = fastifyRoute<ByToken>(({ deps }) => async (req) => {
  return rotatePortalToken(deps, memberActor(req), own(req), req.params.token);
});

export const revokeToken = fastifyRoute<ByToken>(({ deps }) => async (req) => {
  return revokePortalToken(deps, memberActor(req), own(req), req.params.token);
});

export const callbackSecret = fastifyRoute<ByToken>(({ deps }) => async (req) => {
  return portalCallbackSecret(deps, own(req), req.params.token);
});

/** POST …/redeem {"code"}: the credit lands on the account (core/credit/redeem.ts). */
export const redeem = fastifyRoute<ByAccount>(({ deps }) => async (req) => {
  const accountId = own(req);
  const { code } = parseRedeem(req.body);
  return redeemCode(deps, memberActor(req), { code, holder: { kind: 'account', id: accountId }, tokenId: null });
});
