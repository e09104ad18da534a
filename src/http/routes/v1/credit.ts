// POST /v1/credit/redeem: the calling token redeems a code for its account, or itself when it has none
// (core/credit/redeem.ts).
import { principalOf } from '../../../core/call.ts';
import { holderOfToken, parseRedeem, redeemCode } from '../../../core/credit/redeem.ts';
import { fastifyRoute } from '../../front/route-row.ts';

export const redeem = fastifyRoute(({ deps }) => async (req) => {
  const { code } = parseRedeem(req.body);
  const tokenId = principalOf(req).tokenId;
  const holder = await holderOfToken(deps, tokenId);
  return redeemCode(deps, { actor: 'token', token: tokenId, requestId: req.id }, { code, holder, tokenId });
});
