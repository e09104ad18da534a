// A member manages their account's tokens: creates one within what the account allows, rotates and revokes it, reads
// its callback secret. Every id is checked to be of the member's account (accountToken: 404 otherwise). The admin
// operations do the work, so each change is audited and announced to the other instances alike.
import { onlyFields, requireBody } from '../../contracts/fields.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { AccountRecord } from '../../store/repos/accounts.ts';
import { createdToken, issueToken, parseCreateToken, revokeToken, type CreateTokenInput } from '../admin/tokens.ts';
import { rotateToken } from '../admin/token-changes.ts';
import { remaining } from '../admin/holders.ts';
import type { Actor, AdminDeps } from '../admin/deps.ts';
import type { CreatedTokenView } from '../views.ts';
import { accountToken, portalToken, type PortalTokenView } from './account.ts';

const FIELDS = ['name', 'models', 'quota', 'expires_at', 'rpm_limit', 'tpm_limit', 'concurrency_limit', 'budgets'];

/** A member's new token: the admin creation's fields but the account (always the member's own). */
export function parsePortalToken(body: unknown): CreateTokenInput {
  onlyFields(requireBody(body), FIELDS);
  return parseCreateToken(body);
}

const over = (param: string, why: string) =>
  new GatewayError('invalid_parameter', `${why}; nothing was created`, { param });

/**
 * No more than the account allows: a quota within the account's remaining one, each budget within the account's
 * budget of its period, an expiry no later than the account's (the account's, when none is asked for).
 */
export function withinAccount(a: AccountRecord, input: CreateTokenInput): CreateTokenInput {
  if (a.revokedAt !== null) throw new GatewayError('conflict', `Account ${a.id} is revoked`);
  const left = remaining(a.quota, a.spent, a.held);
  if (left !== null && input.quota !== undefined && input.quota > left)
    throw over('quota', `quota must not exceed the account's remaining quota (${left} micro-units)`);
  for (const b of input.budgets ?? []) {
    const cap = a.budgets.find((x) => x.period === b.period);
    if (cap && b.limit > cap.limit)
      throw over('budgets', `the ${b.period} budget must not exceed the account's (${cap.limit} micro-units)`);
  }
  if (a.expiresAt !== null && input.expiresAt !== undefined && input.expiresAt > a.expiresAt)
    throw over('expires_at', `expires_at must not be after the account's expiry (${a.expiresAt})`);
  return { ...input, accountId: a.id, expiresAt: input.expiresAt ?? a.expiresAt ?? undefined };
}

export async function createPortalToken(
  deps: AdminDeps,
  by: Actor,
  accountId: string,
  input: CreateTokenInput,
): Promise<CreatedTokenView> {
  const a = await deps.repos.accounts.get(accountId);
  if (!a) throw new GatewayError('not_found', `Account ${accountId} not found`);
  return createdToken(await issueToken(deps, by, withinAccount(a, input)));
}

/** A new secret at once (the old one stops now: a member rotates a token because it leaked). */
export async function rotatePortalToken(
  deps: AdminDeps,
  by: Actor,
  accountId: string,
  id: string,
): Promise<PortalTokenView & { token: string }> {
  const t = await accountToken(deps, accountId, id);
  if (t.revokedAt !== null) throw new GatewayError('conflict', `Token ${id} is revoked`);
  const { record, secret } = await rotateToken(deps, by, id, { graceMs: 0 });
  return { ...portalToken(record), token: secret };
}

export async function revokePortalToken(
  deps: AdminDeps,
  by: Actor,
  accountId: string,
  id: string,
): Promise<PortalTokenView> {
  await accountToken(deps, accountId, id);
  return portalToken(await revokeToken(deps, by, id));
}

/** The token's current callback secret (whsec_…): the member's to check their callbacks' signatures with. */
export async function portalCallbackSecret(
  deps: Pick<AdminDeps, 'repos' | 'box'>,
  accountId: string,
  id: string,
): Promise<{ object: 'callback_secret'; token_id: string; callback_secret: string | null }> {
  await accountToken(deps, accountId, id);
  const sealed = await deps.repos.tokens.callbackSecrets(id);
  const current = sealed?.current ?? null;
  return { object: 'callback_secret', token_id: id, callback_secret: current === null ? null : deps.box.open(current) };
}
