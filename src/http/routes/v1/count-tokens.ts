// POST /v1/messages/count_tokens: the messages API's token count (a local estimate; core/count-tokens.ts). Its
// errors take the messages shape, as /v1/messages's do (errors/render.ts familyOf).
import { requireBody } from '../../../contracts/fields.ts';
import { countMessageTokens } from '../../../core/count-tokens.ts';
import { fastifyRoute } from '../../front/route-row.ts';

export const countTokens = fastifyRoute(({ deps }) => async (req) => {
  return countMessageTokens(deps, req, requireBody(req.body));
});
