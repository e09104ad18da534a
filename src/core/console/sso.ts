// Single sign-on to the console: the issuer's claims decide who the person is (a verified e-mail in an allowed
// domain) and their role (the role claim's groups through TOLLWAY_OIDC_ROLES). The person is found by e-mail, or
// made with that role, and their role follows the issuer's at each sign-in. Whoever is refused gets nothing made.
import { newId } from '../../auth/token-secret.ts';
import type { Claims } from '../../auth/oidc-issuer.ts';
import type { OidcConfig } from '../../config/oidc-env.ts';
import type { AuditRepo } from '../../store/repos/audit.ts';
import type { PersonRecord, StaffRepo } from '../../store/repos/staff.ts';
import { isUniqueViolation } from '../../store/store-errors.ts';
import { audit, type Actor } from '../admin/deps.ts';
import { ROLES, type Role } from '../staff/roles.ts';
import { openSession, type ConsoleDeps, type SignedIn } from './sessions.ts';

export interface SsoDeps {
  readonly oidc: Pick<OidcConfig, 'issuer' | 'roleClaim' | 'roles' | 'emailDomains'>;
  readonly repos: { readonly staff: StaffRepo; readonly audit: AuditRepo };
  readonly sessions: Pick<ConsoleDeps, 'sessions' | 'adminKey' | 'sessionMs'>;
}

/** A sign-in refused for who the person is: no access, and a page that says why. */
export class SsoRefused extends Error {
  override name = 'SsoRefused';
  constructor(
    readonly reason: 'email_unverified' | 'email_domain' | 'no_role' | 'disabled' | 'no_member',
    message: string,
  ) {
    super(message);
  }
}

/** The role claim's value (a dotted path walks into objects, e.g. Keycloak's `realm_access.roles`) as strings. */
export function groupsOf(claims: Claims, path: string): string[] {
  let v: unknown = claims;
  for (const part of path.split('.')) v = typeof v === 'object' && v !== null ? (v as Claims)[part] : undefined;
  if (typeof v === 'string') return [v];
  return Array.isArray(v) ? v.filter((g): g is string => typeof g === 'string') : [];
}

/** The strongest role the person's groups map to (ROLES is strongest first), or null: no mapped group. */
export function roleOf(groups: readonly string[], map: ReadonlyMap<string, Role>): Role | null {
  const mine = new Set(groups.flatMap((g) => map.get(g) ?? []));
  return ROLES.find((r) => mine.has(r)) ?? null;
}

const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1);

/** The person's e-mail when the issuer verified it and its domain is allowed; else the refusal. */
export function emailOf(claims: Claims, domains: OidcConfig['emailDomains']): string {
  const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
  if (!email.includes('@')) throw new SsoRefused('email_unverified', 'The issuer gave no e-mail address for you.');
  if (claims.email_verified !== true)
    throw new SsoRefused('email_unverified', `The issuer has not verified your e-mail address ${email}.`);
  if (domains !== '*' && !domains.includes(domainOf(email)))
    throw new SsoRefused('email_domain', `The e-mail domain of ${email} is not one this console admits.`);
  return email;
}

function displayName(claims: Claims, email: string): string {
  const n = typeof claims.name === 'string' ? claims.name.trim() : '';
  return (n || email).slice(0, 200);
}

/** The person of this e-mail in `role`: found (their role made the issuer's), or made; a disabled one is refused. */
async function personFor(
  deps: SsoDeps,
  by: Actor,
  email: string,
  role: Role,
  name: string,
  now: number,
): Promise<PersonRecord> {
  const staff = deps.repos.staff;
  let person = await staff.personByEmail(email);
  if (!person) {
    const made: PersonRecord = {
      id: newId('usr'),
      name,
      email,
      role,
      disabledAt: null,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await staff.insertPerson(made);
      await audit(deps, { ...by, person: made.id }, 'user.create', made.id, { email, role, via: 'sso' });
      return made;
    } catch (e) {
      // A second first sign-in of the same person at once: theirs made the row; this one reads it.
      if (!isUniqueViolation(e)) throw e;
      person = await staff.personByEmail(email);
      if (!person) throw e;
    }
  }
  if (person.disabledAt !== null) throw new SsoRefused('disabled', `Your staff access (${email}) was disabled.`);
  if (person.role !== role) {
    const changed = await staff.updatePerson(person.id, { role }, now);
    await audit(deps, { ...by, person: person.id }, 'user.update', person.id, {
      role: { from: person.role, to: role },
      via: 'sso',
    });
    person = changed ?? person;
  }
  return person;
}

/**
 * The console session of the person the issuer vouched for, or SsoRefused (nothing made, an audit line naming the
 * person and why). `requestId` ties the audit lines to the callback's request.
 */
export async function ssoSignIn(
  deps: SsoDeps,
  claims: Claims,
  client: string,
  requestId: string,
  now = Date.now(),
): Promise<SignedIn & { person: PersonRecord }> {
  const by: Actor = { actor: 'console', requestId };
  const seen = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : String(claims.sub ?? '');
  const groups = groupsOf(claims, deps.oidc.roleClaim);
  try {
    const email = emailOf(claims, deps.oidc.emailDomains);
    const role = roleOf(groups, deps.oidc.roles);
    if (role === null)
      throw new SsoRefused(
        'no_role',
        `${email} is in no group this console maps to a role (the ${deps.oidc.roleClaim} claim), so has no access.`,
      );
    const person = await personFor(deps, by, email, role, displayName(claims, email), now);
    const signed = await openSession(deps.sessions, { role, personId: person.id, keyId: null }, client, now);
    await audit(deps, { ...by, session: signed.session.id, person: person.id }, 'console.sso.signin', person.id, {
      email,
      role,
      issuer: deps.oidc.issuer,
    });
    return { ...signed, person: { ...person, role } };
  } catch (e) {
    if (e instanceof SsoRefused) {
      const known = seen.includes('@') ? await deps.repos.staff.personByEmail(seen) : null;
      await audit(deps, known ? { ...by, person: known.id } : by, 'console.sso.refused', known?.id ?? seen, {
        email: seen,
        reason: e.reason,
        groups,
        issuer: deps.oidc.issuer,
      });
    }
    throw e;
  }
}
