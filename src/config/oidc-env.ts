// TOLLWAY_OIDC_*: single sign-on to the console through an OpenID Connect issuer, read for config.ts.
import { ROLES, isRole, type Role } from '../core/staff/roles.ts';
import { ConfigError, urlVar, type Env } from './env-vars.ts';

export interface OidcConfig {
  /** The issuer identifier (its discovery document is `<issuer>/.well-known/openid-configuration`). */
  issuer: string;
  clientId: string;
  /** Absent: a public client (PKCE only, no client authentication). */
  clientSecret: string | undefined;
  /** What the sign-in page's button names ("Sign in with <name>"). */
  name: string;
  scopes: string;
  /** The claim whose value (a string or a list of strings) names the person's groups; dots walk into objects. */
  roleClaim: string;
  /** A group's role; a person in several mapped groups gets the strongest of their roles. */
  roles: ReadonlyMap<string, Role>;
  /** Allowed e-mail domains, lower case; '*' allows any. */
  emailDomains: readonly string[] | '*';
  /** `<TOLLWAY_PUBLIC_URL>/console/sso/callback`, registered at the issuer. */
  redirectUri: string;
  /** Where the issuer's logout sends the browser back: the console. */
  postLogoutUri: string;
  /** Plain http to the issuer: allowed only for a loopback issuer (a local test or development provider). */
  allowHttp: boolean;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** `group:role,group:role`, or a JSON object `{"group": "role"}`; a group may contain ':' (the last one splits). */
export function parseRoleMap(raw: string): Map<string, Role> {
  const out = new Map<string, Role>();
  const add = (group: string, role: unknown) => {
    if (!group) throw new ConfigError('TOLLWAY_OIDC_ROLES: a group name is empty');
    if (!isRole(role))
      throw new ConfigError(`TOLLWAY_OIDC_ROLES: "${String(role)}" is not a role (${ROLES.join(', ')})`);
    out.set(group, role);
  };
  const text = raw.trim();
  if (text.startsWith('{')) {
    let o: Record<string, unknown>;
    try {
      // Text starting with '{' that parses is an object.
      o = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new ConfigError('TOLLWAY_OIDC_ROLES is not valid JSON');
    }
    for (const [g, r] of Object.entries(o)) add(g, r);
  } else {
    for (const item of text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const at = item.lastIndexOf(':');
      if (at < 0) throw new ConfigError(`TOLLWAY_OIDC_ROLES: "${item}" is not group:role`);
      add(item.slice(0, at).trim(), item.slice(at + 1).trim());
    }
  }
  if (out.size === 0) throw new ConfigError('TOLLWAY_OIDC_ROLES must map at least one group to a role');
  return out;
}

function domains(raw: string | undefined): readonly string[] | '*' {
  const list = (raw ?? '')
    .split(',')
    .map((d) => d.trim().toLowerCase().replace(/^@/, ''))
    .filter(Boolean);
  if (list.length === 0)
    throw new ConfigError('TOLLWAY_OIDC_EMAIL_DOMAINS must list the allowed e-mail domains (or * for any)');
  if (list.includes('*')) return '*';
  for (const d of list)
    if (!/^[a-z0-9.-]+\.[a-z0-9-]+$/.test(d))
      throw new ConfigError(`TOLLWAY_OIDC_EMAIL_DOMAINS: "${d}" is not a domain`);
  return list;
}

/** Off (null) unless TOLLWAY_OIDC_ISSUER is set; then the client id, the roles, the domains and a public URL must be. */
export function oidcConfig(env: Env, publicUrl: string | undefined): OidcConfig | null {
  if (!env.TOLLWAY_OIDC_ISSUER?.trim()) return null;
  const issuer = urlVar(env, 'TOLLWAY_OIDC_ISSUER', '');
  const u = new URL(issuer);
  const allowHttp = u.protocol === 'http:';
  if (allowHttp && !LOOPBACK.has(u.hostname))
    throw new ConfigError('TOLLWAY_OIDC_ISSUER must be an https URL (plain http only for a loopback issuer)');
  const clientId = env.TOLLWAY_OIDC_CLIENT_ID?.trim();
  if (!clientId) throw new ConfigError('TOLLWAY_OIDC_CLIENT_ID is required with TOLLWAY_OIDC_ISSUER');
  if (!publicUrl)
    throw new ConfigError(
      'TOLLWAY_PUBLIC_URL is required with TOLLWAY_OIDC_ISSUER (the sign-in callback is <TOLLWAY_PUBLIC_URL>/console/sso/callback)',
    );
  const rolesRaw = env.TOLLWAY_OIDC_ROLES?.trim();
  if (!rolesRaw) throw new ConfigError('TOLLWAY_OIDC_ROLES is required with TOLLWAY_OIDC_ISSUER (group:role,…)');
  return {
    issuer,
    clientId,
    clientSecret: env.TOLLWAY_OIDC_CLIENT_SECRET?.trim() || undefined,
    name: env.TOLLWAY_OIDC_NAME?.trim() || u.host,
    scopes: env.TOLLWAY_OIDC_SCOPES?.trim() || 'openid email profile',
    roleClaim: env.TOLLWAY_OIDC_ROLE_CLAIM?.trim() || 'groups',
    roles: parseRoleMap(rolesRaw),
    emailDomains: domains(env.TOLLWAY_OIDC_EMAIL_DOMAINS),
    redirectUri: `${publicUrl}/console/sso/callback`,
    postLogoutUri: `${publicUrl}/console/`,
    allowHttp,
  };
}
