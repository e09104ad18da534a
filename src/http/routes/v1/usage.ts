// GET /v1/usage: the calling token's own balance and usage by model (core/token-usage.ts).
import { qTime, type Query } from '../../../contracts/query.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import { tokenUsage } from '../../../core/token-usage.ts';
import { fastifyRoute } from '../../front/route-row.ts';

export const usage = fastifyRoute<{ Querystring: Query }>(({ deps }) => async (req) => {
  // A misspelt filter must not silently widen the answer.
  for (const k of Object.keys(req.query))
    if (k !== 'since' && k !== 'until')
      throw new GatewayError('invalid_parameter', `Unknown query parameter: ${k} (allowed: since, until)`, {
        param: k,
      });
  return tokenUsage(deps, req, { since: qTime(req.query, 'since'), until: qTime(req.query, 'until') });
});
