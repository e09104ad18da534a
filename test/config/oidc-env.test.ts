// TOLLWAY_OIDC_*: off unless an issuer is set; then what single sign-on needs is required, and the role map and the
// e-mail domains are read in their documented forms (or refused at start, naming the variable).
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/env-vars.ts';
import { oidcConfig, parseRoleMap } from '../../src/config/oidc-env.ts';

const PUBLIC = 'https://gw.example.com';
const base = {
  TOLLWAY_OIDC_ISSUER: 'https://login.example.com/realms/staff/',
  TOLLWAY_OIDC_CLIENT_ID: 'tollway',
  TOLLWAY_OIDC_ROLES: 'admins:admin,support:viewer',
  TOLLWAY_OIDC_EMAIL_DOMAINS: 'example.com, @Example.org',
};

describe('TOLLWAY_OIDC_*', () => {
  it('is off without an issuer', () => {
    expect(oidcConfig({}, PUBLIC)).toBeNull();
  });

  it('reads the issuer, the client, the role map, the domains, and derives the redirect address', () => {
    const c = oidcConfig({ ...base, TOLLWAY_OIDC_CLIENT_SECRET: 's3cret' }, PUBLIC)!;
    expect(c.issuer).toBe('https://login.example.com/realms/staff');
    expect(c.clientSecret).toBe('s3cret');
    expect(c.name).toBe('login.example.com');
    expect(c.roleClaim).toBe('groups');
    expect(c.scopes).toBe('openid email profile');
    expect([...c.roles]).toEqual([
      ['admins', 'admin'],
      ['support', 'viewer'],
    ]);
    expect(c.emailDomains).toEqual(['example.com', 'example.org']);
    expect(c.redirectUri).toBe(`${PUBLIC}/console/sso/callback`);
    expect(c.postLogoutUri).toBe(`${PUBLIC}/console/`);
    expect(c.allowHttp).toBe(false);
    expect(oidcConfig({ ...base, TOLLWAY_OIDC_EMAIL_DOMAINS: '*' }, PUBLIC)!.emailDomains).toBe('*');
  });

  it('takes the role map as JSON too, and a group name with colons (the last one splits)', () => {
    expect([...parseRoleMap('{"Tollway Owners": "owner", "billing": "billing"}')]).toEqual([
      ['Tollway Owners', 'owner'],
      ['billing', 'billing'],
    ]);
    expect([...parseRoleMap('urn:corp:ops:operator')]).toEqual([['urn:corp:ops', 'operator']]);
  });

  it.each([
    [{ TOLLWAY_OIDC_CLIENT_ID: '' }, 'TOLLWAY_OIDC_CLIENT_ID'],
    [{ TOLLWAY_OIDC_ROLES: '' }, 'TOLLWAY_OIDC_ROLES'],
    [{ TOLLWAY_OIDC_ROLES: 'admins:god' }, '"god" is not a role'],
    [{ TOLLWAY_OIDC_ROLES: 'admins' }, 'not group:role'],
    [{ TOLLWAY_OIDC_ROLES: '{"a": ' }, 'not valid JSON'],
    [{ TOLLWAY_OIDC_ROLES: '{"admins": 3}' }, '"3" is not a role'],
    [{ TOLLWAY_OIDC_ROLES: '{}' }, 'at least one group'],
    [{ TOLLWAY_OIDC_EMAIL_DOMAINS: '' }, 'TOLLWAY_OIDC_EMAIL_DOMAINS'],
    [{ TOLLWAY_OIDC_EMAIL_DOMAINS: 'not a domain' }, 'is not a domain'],
    [{ TOLLWAY_OIDC_ISSUER: 'http://login.example.com' }, 'https'],
  ])('refuses %o at start', (over, says) => {
    expect(() => oidcConfig({ ...base, ...over }, PUBLIC)).toThrow(ConfigError);
    expect(() => oidcConfig({ ...base, ...over }, PUBLIC)).toThrow(says);
  });

  it('needs a public URL (the redirect address), and takes plain http only from a loopback issuer', () => {
    expect(() => oidcConfig(base, undefined)).toThrow('TOLLWAY_PUBLIC_URL');
    expect(oidcConfig({ ...base, TOLLWAY_OIDC_ISSUER: 'http://localhost:9000' }, PUBLIC)!.allowHttp).toBe(true);
  });
});
