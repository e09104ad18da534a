// A customer redeems a code: the credit lands on the token's account, or on the token when it has none, as one
// ledger credit line (credit-holder.ts). A code redeems once, ever: its claim is a compare-and-set, and the credit's
// ledger key names the code, so a retry of the same redeemer finishes (or repeats) the same credit and gets the same
// answer, while anyone else gets credit_code_used. No HTTP here: the API route and the portal both call it.
import { GatewayError } from '../../errors/gateway-error.ts';
import { onlyFields, optString, requireBody } from '../../contracts/fields.ts';
import type { CreditCodeRecord } from '../../store/repos/credit-codes.ts';
import { audit, type Actor } from '../admin/deps.ts';
import { hashCode } from './codes.ts';
import { creditHolder, ledgerKeyOf, type Holder } from './credit-holder.ts';
import type { CreditDeps } from './deps.ts';

export interface Redemption {
  object: 'credit.redemption';
  code_id: string;
  /** Micro-units credited. */
  amount: number;
  holder_kind: Holder['kind'];
  holder_id: string;
  redeemed_at: number;
}

export interface RedeemInput {
  code: string;
  /** Whose balance the credit lands on. */
  holder: Holder;
  /** The token that asked (null from the portal: a person, named by `by`). */
  tokenId: string | null;
}

/** POST /v1/credit/redeem's body: `{"code": "twc_…"}`. */
export function parseRedeem(body: unknown): { code: string } {
  const o = requireBody(body);
  onlyFields(o, ['code']);
  const code = optString(o, 'code', { max: 100 })?.trim();
  if (!code)
    throw new GatewayError('missing_parameter', 'code is required (the redemption code, twc_…)', { param: 'code' });
  return { code };
}

/** The holder a token's credit lands on: its account when it has one, else itself. */
export async function holderOfToken(deps: CreditDeps, tokenId: string): Promise<Holder> {
  const t = await deps.repos.tokens.get(tokenId);
  if (!t) throw new GatewayError('invalid_token', 'Invalid token');
  return t.accountId ? { kind: 'account', id: t.accountId } : { kind: 'token', id: t.id };
}

const sameRedeemer = (c: CreditCodeRecord, r: RedeemInput): boolean =>
  c.holderKind === r.holder.kind && c.holderId === r.holder.id && c.tokenId === r.tokenId;

const used = () =>
  new GatewayError('credit_code_used', 'This code was already redeemed; nothing was credited', { param: 'code' });

/** A holder with no quota is unlimited: a credit has nothing to add to (the top-up would refuse it). */
async function checkLimited(deps: CreditDeps, h: Holder): Promise<void> {
  const rec = h.kind === 'account' ? await deps.repos.accounts.get(h.id) : await deps.repos.tokens.get(h.id);
  if (rec && rec.quota === null)
    throw new GatewayError(
      'conflict',
      `This ${h.kind === 'account' ? "token's account" : 'token'} has no quota (its use is unlimited): there is nothing to add a code's credit to; nothing was credited`,
      { param: 'code' },
    );
}

export async function redeemCode(deps: CreditDeps, by: Actor, r: RedeemInput, now = Date.now()): Promise<Redemption> {
  const found = await deps.repos.creditCodes.findByHash(hashCode(r.code));
  if (!found) throw new GatewayError('not_found', 'Unknown redemption code; nothing was credited', { param: 'code' });
  const { batch } = found;
  let code = found.code;
  if (code.redeemedAt === null) {
    if (batch.revokedAt !== null)
      throw new GatewayError('credit_code_expired', "This code's batch was revoked; nothing was credited", {
        param: 'code',
      });
    if (batch.expiresAt <= now)
      throw new GatewayError('credit_code_expired', 'This code has expired; nothing was credited', { param: 'code' });
    await checkLimited(deps, r.holder);
    const claim = {
      holderKind: r.holder.kind,
      holderId: r.holder.id,
      tokenId: r.tokenId,
      requestId: by.requestId ?? null,
      at: now,
    };
    // Of concurrent redeemers one claims it; the others read who did.
    code = (await deps.repos.creditCodes.claim(code.id, claim))
      ? { ...code, redeemedAt: now, holderKind: claim.holderKind, holderId: claim.holderId, tokenId: claim.tokenId }
      : ((await deps.repos.creditCodes.getCode(code.id)) ?? code);
  }
  // Claimed by this redeemer, now or by an earlier try of the same request: credit (once, by the code's ledger key).
  if (!sameRedeemer(code, r)) throw used();
  const key = `redeem:${code.id}`;
  let credited: boolean;
  try {
    ({ credited } = await creditHolder(deps, by, r.holder, batch.amount, key));
  } catch (e) {
    // Refused (the holder revoked, its quota removed meanwhile): the code is given back, unless credited after all.
    await deps.repos.creditCodes.release(code.id, r.holder.id, ledgerKeyOf(r.holder, key));
    throw e;
  }
  if (credited)
    await audit(deps, by, 'credit.redeem', code.id, {
      batch_id: batch.id,
      holder_kind: r.holder.kind,
      holder_id: r.holder.id,
      token_id: r.tokenId,
      amount: batch.amount,
    });
  return {
    object: 'credit.redemption',
    code_id: code.id,
    amount: batch.amount,
    holder_kind: r.holder.kind,
    holder_id: r.holder.id,
    redeemed_at: code.redeemedAt ?? now,
  };
}
