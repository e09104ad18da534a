// A token and an account are holders of one shape: each carries a quota, spent, held, budgets, a price group (an
// account's), revocation and expiry. What reads or changes those the same way for both is written here once.
import { GatewayError } from '../../errors/gateway-error.ts';
import { topUpHolder, type HolderKind } from '../../metering/top-up.ts';
import { audit, type Actor, type AdminDeps } from './deps.ts';

export { remaining } from '../../metering/balances/remaining.ts';

/**
 * An expiry given in a create or an edit: a future time (ms since the epoch); `orNone`: the edit may clear it with
 * null.
 */
export function checkExpiry(v: number | null | undefined, now: number, orNone = false): void {
  if (v !== undefined && v !== null && v <= now)
    throw new GatewayError(
      'invalid_parameter',
      `expires_at must be a future time in milliseconds since the epoch${orNone ? ' (or null for none)' : ''}`,
      {
        param: 'expires_at',
      },
    );
}

const NAMES: Record<HolderKind, { noun: string; path: string }> = {
  token: { noun: 'Token', path: 'tokens' },
  account: { noun: 'Account', path: 'accounts' },
};

/**
 * Credit a holder's quota (metering/top-up.ts) under the caller's idempotency key (else a fresh one), and answer its
 * refusals for that kind of holder. Returns whether it was credited (false: the key was used before).
 */
async function creditQuota(
  deps: Pick<AdminDeps, 'store'>,
  by: Actor,
  kind: HolderKind,
  id: string,
  input: { amount: number; idempotencyKey?: string | undefined },
): Promise<{ credited: boolean; quota: number; key: string }> {
  const key = `topup:${id}:${input.idempotencyKey ?? `${by.requestId ?? 'cli'}:${Date.now()}:${Math.random().toString(36).slice(2)}`}`;
  const r = await topUpHolder(deps.store.db, kind, {
    holderId: id,
    amount: input.amount,
    key,
    requestId: by.requestId ?? null,
  });
  if (r.outcome === 'credited' || r.outcome === 'repeated')
    return { credited: r.outcome === 'credited', quota: r.quota, key };
  throw refusal(kind, id, r.outcome);
}

/** What a top-up does around the credit for one kind of holder: tell the instances of the change, read it back. */
export interface HolderSide<R> {
  readonly kind: HolderKind;
  announce(id: string): Promise<void>;
  get(id: string): Promise<R>;
}

/**
 * Top up a holder's quota: credit it, tell the instances, audit a credit (not a repeat), and answer the holder as it
 * is now.
 */
export async function topUpQuota<R>(
  deps: Pick<AdminDeps, 'store' | 'repos'>,
  by: Actor,
  side: HolderSide<R>,
  id: string,
  input: { amount: number; idempotencyKey?: string | undefined },
): Promise<{ holder: R; amount: number; credited: boolean }> {
  const r = await creditQuota(deps, by, side.kind, id, input);
  await side.announce(id);
  if (r.credited)
    await audit(deps, by, `${side.kind}.topup`, id, { amount: input.amount, quota_after: r.quota, ledger_key: r.key });
  return { holder: await side.get(id), amount: input.amount, credited: r.credited };
}

/** A top-up's refusal, for its kind of holder. */
function refusal(
  kind: HolderKind,
  id: string,
  outcome: 'unknown' | 'revoked' | 'unlimited' | 'conflict' | 'too-large',
): GatewayError {
  const { noun, path } = NAMES[kind];
  switch (outcome) {
    case 'unknown':
      return new GatewayError('not_found', `${noun} ${id} not found`);
    case 'revoked':
      return new GatewayError('conflict', `${noun} ${id} is revoked`);
    // Read by admin API and CLI callers alike: both ways of setting a quota are named.
    case 'unlimited':
      return new GatewayError(
        'conflict',
        `${noun} ${id} has no quota (unlimited): set one first (PATCH /admin/${path}/${id} with "quota", or tollway ${kind} update ${id} --quota N)`,
      );
    case 'conflict':
      return new GatewayError('conflict', 'This idempotency_key was already used for another top-up', {
        param: 'idempotency_key',
      });
    case 'too-large':
      return new GatewayError('invalid_parameter', 'The quota would exceed the largest amount a quota may hold', {
        param: 'amount',
      });
  }
}
