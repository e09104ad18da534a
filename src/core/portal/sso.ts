// Single sign-on to the customer portal: the issuer's verified e-mail names the members it belongs to (one per
// account). One member: signed in. Several: the person picks the account (the sign-in starts again for it). None,
// or an e-mail the issuer did not verify: no portal access, and nothing is made. Unlike the console's, the e-mail's
// domain is not checked: customers' addresses are their own; a member exists only if an operator issued it.
import type { Claims } from '../../auth/oidc-issuer.ts';
import type { MemberRecord } from '../../store/repos/members.ts';
import { SsoRefused } from '../console/sso.ts';
import { membersByEmail, type PortalDeps } from './sessions.ts';

export type PortalSsoOutcome =
  | { member: MemberRecord }
  | { choose: Array<{ accountId: string; name: string }>; email: string };

/** The member this sign-in opens a session for, or the accounts to choose from. `account`: the one chosen. */
export async function portalSsoMember(
  deps: Pick<PortalDeps, 'members' | 'accounts'>,
  claims: Claims,
  account: string | undefined,
): Promise<PortalSsoOutcome> {
  const email = typeof claims.email === 'string' ? claims.email.trim() : '';
  if (email === '' || claims.email_verified !== true)
    throw new SsoRefused('email_unverified', 'The sign-in service gave no verified e-mail address for you.');
  const all = await membersByEmail(deps, email);
  const members = account === undefined ? all : all.filter((m) => m.accountId === account);
  if (members.length === 0)
    throw new SsoRefused(
      'no_member',
      `${email} is not a member of ${account === undefined ? 'any customer account' : 'that account'} here; ask the ` +
        "operator for portal access (a member is issued on the account's page).",
    );
  if (members.length === 1) return { member: members[0]! };
  const choose = await Promise.all(
    members.map(async (m) => ({
      accountId: m.accountId,
      name: (await deps.accounts.get(m.accountId))?.name ?? m.accountId,
    })),
  );
  return { choose, email };
}
