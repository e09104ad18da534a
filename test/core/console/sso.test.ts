// Single sign-on's rules on the issuer's claims, on both stores: the role from the groups (the strongest mapped one;
// a dotted claim path), the e-mail verified and in an allowed domain, the person found by e-mail or made, their role
// following the issuer's, and a refusal that makes nothing but an audit line naming the person.
import { describe, expect, it } from 'vitest';
import { emailOf, groupsOf, roleOf, SsoRefused, ssoSignIn, type SsoDeps } from '../../../src/core/console/sso.ts';
import { AuditRepo } from '../../../src/store/repos/audit.ts';
import { ConsoleSessionsRepo } from '../../../src/store/repos/console-sessions.ts';
import { StaffRepo } from '../../../src/store/repos/staff.ts';
import { useStore } from '../../support/store.ts';

const roles = new Map([
  ['admins', 'admin'],
  ['support', 'viewer'],
  ['money', 'billing'],
] as const);

describe('the claims', () => {
  it('the groups claim as a list or one string, or by a dotted path; the strongest mapped role wins', () => {
    expect(groupsOf({ groups: ['a', 3, 'b'] }, 'groups')).toEqual(['a', 'b']);
    expect(groupsOf({ groups: 'a' }, 'groups')).toEqual(['a']);
    expect(groupsOf({ realm_access: { roles: ['admins'] } }, 'realm_access.roles')).toEqual(['admins']);
    expect(groupsOf({}, 'realm_access.roles')).toEqual([]);
    expect(roleOf(['support', 'money', 'admins'], roles)).toBe('admin');
    expect(roleOf(['support', 'money'], roles)).toBe('billing');
    expect(roleOf(['everyone'], roles)).toBeNull();
  });

  it('the e-mail must be given, verified, and of an allowed domain (case aside)', () => {
    expect(emailOf({ email: 'Ada@Staff.Test', email_verified: true }, ['staff.test'])).toBe('ada@staff.test');
    expect(emailOf({ email: 'ada@any.where', email_verified: true }, '*')).toBe('ada@any.where');
    const refusal = (c: Record<string, unknown>) => {
      try {
        emailOf(c, ['staff.test']);
      } catch (e) {
        return e instanceof SsoRefused ? e.reason : 'other';
      }
      return 'none';
    };
    expect(refusal({ email_verified: true })).toBe('email_unverified');
    expect(refusal({ email: 'ada@staff.test' })).toBe('email_unverified');
    expect(refusal({ email: 'ada@staff.test', email_verified: 'true' })).toBe('email_unverified');
    expect(refusal({ email: 'ada@evilstaff.test', email_verified: true })).toBe('email_domain');
    expect(refusal({ email: 'ada@staff.test.evil', email_verified: true })).toBe('email_domain');
  });
});

describe('ssoSignIn', () => {
  const s = useStore();
  const deps = (): SsoDeps => ({
    oidc: { issuer: 'https://idp.test', roleClaim: 'groups', roles, emailDomains: ['staff.test'] },
    repos: { staff: new StaffRepo(s.store.db), audit: new AuditRepo(s.store.db) },
    sessions: {
      sessions: new ConsoleSessionsRepo(s.store.db),
      adminKey: 'an-admin-key-for-the-test',
      sessionMs: 60_000,
    },
  });
  const claims = (groups: string[]) => ({
    sub: 's1',
    email: 'ada@staff.test',
    email_verified: true,
    name: 'Ada',
    groups,
  });

  it('makes the person at the first sign-in, finds them after, and their role follows the issuer', async () => {
    const d = deps();
    const first = await ssoSignIn(d, claims(['support']), '127.0.0.1', 'req-1');
    expect(first.person).toMatchObject({ email: 'ada@staff.test', name: 'Ada', role: 'viewer' });
    expect(first.session).toMatchObject({ personId: first.person.id, keyId: null });
    const second = await ssoSignIn(d, claims(['admins']), '127.0.0.1', 'req-2');
    expect(second.person.id).toBe(first.person.id);
    expect((await d.repos.staff.person(first.person.id))!.role).toBe('admin');
    expect(await d.repos.staff.keys(first.person.id)).toEqual([]);
    const lines = await d.repos.audit.list(10, { person: first.person.id });
    expect(lines.map((l) => l.action).sort()).toEqual([
      'console.sso.signin',
      'console.sso.signin',
      'user.create',
      'user.update',
    ]);
  });

  it('two first sign-ins of one person at once make one person, and both get a session', async () => {
    const d = deps();
    const c = { ...claims(['money']), email: 'bo@staff.test' };
    const [a, b] = await Promise.all([ssoSignIn(d, c, 'x', 'req-a'), ssoSignIn(d, c, 'x', 'req-b')]);
    expect(a.person.id).toBe(b.person.id);
    expect(a.session.id).not.toBe(b.session.id);
    const made = await d.repos.audit.list(10, { action: 'user.create', target: a.person.id });
    expect(made).toHaveLength(1);
  });

  it('refuses a person in no mapped group: no session, no change, an audit line naming them', async () => {
    const d = deps();
    const before = await d.repos.staff.personByEmail('ada@staff.test');
    await expect(ssoSignIn(d, claims(['everyone']), '127.0.0.1', 'req-3')).rejects.toMatchObject({
      reason: 'no_role',
    });
    expect(await d.repos.staff.personByEmail('ada@staff.test')).toEqual(before);
    const [line] = await d.repos.audit.list(1, { action: 'console.sso.refused' });
    expect(line).toMatchObject({ personId: before!.id, requestId: 'req-3' });
    await expect(
      ssoSignIn(d, { ...claims(['admins']), email: 'zed@staff.test', email_verified: false }, 'x', 'req-4'),
    ).rejects.toMatchObject({ reason: 'email_unverified' });
    expect(await d.repos.staff.personByEmail('zed@staff.test')).toBeNull();
  });
});
