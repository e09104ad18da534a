// Members of a customer account (the portal's people): issued by an operator with a first member key, listed,
// revoked; a member rotates their own key. A key is shown once, in the answer that made it; the store keeps only its
// SHA-256. Every change is audited.
import { DEFAULT_MEMBER_KEY_DAYS, issueMemberBody, MAX_MEMBER_KEY_DAYS } from '../admin/bodies/members.ts';
import { hashToken, newId, randomString } from '../../auth/token-secret.ts';
import { onlyFields, optInt, reqString, requireBody } from '../../contracts/fields.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { JsonObject } from '../../json/json.ts';
import type { AccountsRepo } from '../../store/repos/accounts.ts';
import type { AuditRepo } from '../../store/repos/audit.ts';
import type { MemberKeyRecord, MemberRecord, MembersRepo, NewMemberKey } from '../../store/repos/members.ts';
import { isUniqueViolation } from '../../store/store-errors.ts';
import { audit, type Actor } from '../admin/deps.ts';

/** Member keys look unlike client tokens (`tw-`) and staff keys (`tws-`). */
export const MEMBER_KEY_PREFIX = 'twm-';
const DAY_MS = 86_400_000;
export { DEFAULT_MEMBER_KEY_DAYS, MAX_MEMBER_KEY_DAYS };

export interface MemberDeps {
  readonly repos: { readonly members: MembersRepo; readonly accounts: AccountsRepo; readonly audit: AuditRepo };
}

export interface MemberKeyView {
  id: string;
  prefix: string;
  state: 'live' | 'expired' | 'revoked';
  expires_at: number;
  revoked_at: number | null;
  created_at: number;
}

export interface MemberView {
  id: string;
  account_id: string;
  name: string;
  email: string;
  revoked_at: number | null;
  created_at: number;
}

/** A key just made: its view and, this once, its secret. */
export type CreatedMemberKeyView = MemberKeyView & { secret: string };

export function memberKeyView(k: MemberKeyRecord, now = Date.now()): MemberKeyView {
  const state = k.revokedAt !== null ? 'revoked' : k.expiresAt <= now ? 'expired' : 'live';
  return {
    id: k.id,
    prefix: k.prefix,
    state,
    expires_at: k.expiresAt,
    revoked_at: k.revokedAt,
    created_at: k.createdAt,
  };
}

export const memberView = (m: MemberRecord): MemberView => ({
  id: m.id,
  account_id: m.accountId,
  name: m.name,
  email: m.email,
  revoked_at: m.revokedAt,
  created_at: m.createdAt,
});

export function makeMemberKey(memberId: string, days: number, now = Date.now()): { key: NewMemberKey; secret: string } {
  const secret = `${MEMBER_KEY_PREFIX}${randomString(43)}`;
  const key: NewMemberKey = {
    id: newId('mkey'),
    memberId,
    prefix: secret.slice(0, 10),
    secretHash: hashToken(secret),
    expiresAt: now + days * DAY_MS,
    revokedAt: null,
    createdAt: now,
  };
  return { key, secret };
}

const created = (k: NewMemberKey, secret: string): CreatedMemberKeyView => ({ ...memberKeyView(k), secret });

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** An e-mail as members are stored and found by it: trimmed and lower-cased. */
export const normalEmail = (v: string): string => v.trim().toLowerCase();

export interface IssueMemberInput {
  name: string;
  email: string;
  days: number;
}

export function parseIssueMember(body: unknown): IssueMemberInput {
  // The shapes and unknown fields are the schema's (admin/bodies/members.ts); the rules after it are not its.
  const o = issueMemberBody(body);
  const name = reqString(o, 'name', { max: 200, name: true }).trim();
  const email = normalEmail(reqString(o, 'email', { max: 320 }));
  if (!EMAIL.test(email))
    throw new GatewayError('invalid_parameter', 'email must be an e-mail address', { param: 'email' });
  return { name, email, days: parseKeyDays(o) };
}

function parseKeyDays(o: JsonObject): number {
  return optInt(o, 'expires_in_days', 1, MAX_MEMBER_KEY_DAYS) ?? DEFAULT_MEMBER_KEY_DAYS;
}

/** A rotation's body: none, or `{"expires_in_days": n}`. */
export function parseRotateMemberKey(body: unknown): { days: number } {
  const o = body === undefined || body === null ? {} : requireBody(body);
  onlyFields(o, ['expires_in_days']);
  return { days: parseKeyDays(o) };
}

/** The account a member is issued to or listed from: unknown → 404. */
async function accountOf(deps: MemberDeps, accountId: string) {
  const a = await deps.repos.accounts.get(accountId);
  if (!a) throw new GatewayError('not_found', `Account ${accountId} not found`);
  return a;
}

export async function issueMember(
  deps: MemberDeps,
  by: Actor,
  accountId: string,
  input: IssueMemberInput,
  now = Date.now(),
): Promise<MemberView & { key: CreatedMemberKeyView }> {
  const a = await accountOf(deps, accountId);
  if (a.revokedAt !== null) throw new GatewayError('conflict', `Account ${accountId} is revoked`);
  const member: MemberRecord = {
    id: newId('mem'),
    accountId,
    name: input.name,
    email: input.email,
    revokedAt: null,
    createdAt: now,
  };
  const { key, secret } = makeMemberKey(member.id, input.days, now);
  try {
    await deps.repos.members.create(member, key);
  } catch (e) {
    if (isUniqueViolation(e))
      throw new GatewayError('conflict', `Account ${accountId} already has a member with this e-mail`, {
        param: 'email',
      });
    throw e;
  }
  await audit(deps, by, 'member.create', member.id, { account_id: accountId, email: member.email, key_id: key.id });
  return { ...memberView(member), key: created(key, secret) };
}

export async function listMembers(
  deps: MemberDeps,
  accountId: string,
  now = Date.now(),
): Promise<{ object: 'list'; data: Array<MemberView & { keys: MemberKeyView[] }> }> {
  await accountOf(deps, accountId);
  const members = await deps.repos.members.ofAccount(accountId);
  const data = await Promise.all(
    members.map(async (m) => ({
      ...memberView(m),
      keys: (await deps.repos.members.keys(m.id)).map((k) => memberKeyView(k, now)),
    })),
  );
  return { object: 'list', data };
}

/** Revoke a member of the account (and their keys: their portal sessions end at their next request). */
export async function revokeMember(
  deps: MemberDeps,
  by: Actor,
  accountId: string,
  memberId: string,
  now = Date.now(),
): Promise<MemberView> {
  const m = await deps.repos.members.get(memberId);
  if (!m || m.accountId !== accountId)
    throw new GatewayError('not_found', `Account ${accountId} has no member ${memberId}`);
  // Revoking a revoked member changes nothing: the same answer, no second audit line.
  if (m.revokedAt !== null) return memberView(m);
  if (await deps.repos.members.revoke(accountId, memberId, now))
    await audit(deps, by, 'member.revoke', memberId, { account_id: accountId });
  return memberView((await deps.repos.members.get(memberId)) ?? m);
}

/** The member rotates the key they signed in with: the old one stops at once; the new one is shown only here. */
export async function rotateMemberKey(
  deps: MemberDeps,
  by: Actor,
  memberId: string,
  keyId: string | null,
  days: number,
  now = Date.now(),
): Promise<CreatedMemberKeyView> {
  const live = keyId ?? (await deps.repos.members.keys(memberId)).find((k) => k.revokedAt === null)?.id;
  const { key, secret } = makeMemberKey(memberId, days, now);
  if (live === undefined || !(await deps.repos.members.rotateKey(memberId, live, key, now)))
    throw new GatewayError('conflict', 'This member key was already rotated or revoked; sign in with the new one');
  await audit(deps, by, 'member.key.rotate', memberId, { old_key_id: live, key_id: key.id });
  return created(key, secret);
}
