// GET /dashboard/billing/subscription and /dashboard/billing/usage (and under /v1): the legacy billing answers
// dashboards built for OpenAI and new-api read (core/billing-dashboard.ts).
import { qOnly, qString, type Query } from '../../../contracts/query.ts';
import { billingDate, billingSubscription, billingUsage } from '../../../core/billing-dashboard.ts';
import { fastifyRoute } from '../../front/route-row.ts';

export const subscription = fastifyRoute<{ Querystring: Query }>(({ deps }) => async (req) => {
  qOnly(req.query, []);
  return billingSubscription(deps, req);
});

export const usage = fastifyRoute<{ Querystring: Query }>(({ deps }) => async (req) => {
  qOnly(req.query, ['start_date', 'end_date']);
  return billingUsage(deps, req, {
    start: billingDate(qString(req.query, 'start_date'), 'start_date'),
    end: billingDate(qString(req.query, 'end_date'), 'end_date'),
  });
});
