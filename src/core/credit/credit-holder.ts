// A credit that arrives by itself (a redeemed code, a payment) lands on a holder through the operator's own top-up
// (core/admin/holders.ts topUpQuota): one ledger `credit` line and the quota in one transaction, the instances told,
// a `<kind>.topup` audit line. Its idempotency key names what paid for it, so a retry credits nothing more.
import type { HolderKind } from '../../metering/top-up.ts';
import { topUpAccountQuota } from '../admin/accounts.ts';
import type { Actor, AdminDeps } from '../admin/deps.ts';
import { topUp } from '../admin/token-changes.ts';

export interface Holder {
  kind: HolderKind;
  id: string;
}

/** The ledger key topUpQuota writes for this holder and idempotency key (holders.ts: `topup:<holder>:<key>`). */
export const ledgerKeyOf = (h: Holder, idempotencyKey: string): string => `topup:${h.id}:${idempotencyKey}`;

/** Credit `amount` micro-units to a holder once per `idempotencyKey`; `credited` false: it was credited before. */
export async function creditHolder(
  deps: AdminDeps,
  by: Actor,
  h: Holder,
  amount: number,
  idempotencyKey: string,
): Promise<{ credited: boolean; quota: number | null }> {
  const input = { amount, idempotencyKey };
  if (h.kind === 'account') {
    const r = await topUpAccountQuota(deps, by, h.id, input);
    return { credited: r.credited, quota: r.account.quota };
  }
  const r = await topUp(deps, by, h.id, input);
  return { credited: r.credited, quota: r.token.quota };
}
