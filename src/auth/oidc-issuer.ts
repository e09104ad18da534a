// The console's OpenID Connect issuer, through openid-client: the authorization request (state, nonce, PKCE), the
// code exchange with its ID token checks (issuer, audience, signature, expiry, nonce), and the issuer's logout.
// Discovery is done at first use and kept; a failed one is tried again at the next sign-in, so a gateway starts
// while its issuer is down.
import * as oidc from 'openid-client';
import type { OidcConfig } from '../config/oidc-env.ts';

/** What the callback must check, kept between the redirect to the issuer and its answer. */
export interface OidcFlow {
  state: string;
  nonce: string;
  verifier: string;
}

export type Claims = Record<string, unknown>;

/** Why an issuer step failed: `refused` (the issuer or its answer said no: a 4xx), `unreachable` (a 502). */
export class OidcFailure extends Error {
  override name = 'OidcFailure';
  constructor(
    readonly kind: 'refused' | 'unreachable',
    message: string,
  ) {
    super(message);
  }
}

export interface OidcIssuer {
  /** The authorization request's URL, and the flow to check its answer by. */
  begin(): Promise<{ url: string; flow: OidcFlow }>;
  /** The callback's URL (the redirect URI with the issuer's query) → the person's claims (ID token, then userinfo). */
  finish(callback: URL, flow: OidcFlow): Promise<Claims>;
  /** The issuer's RP-initiated logout address, or null when it has none (or cannot be reached). */
  logoutUrl(): Promise<string | null>;
}

/** Claims an ID token may leave out that userinfo gives: the e-mail, its verification, the role claim's top name. */
const needsUserinfo = (c: Claims, roleClaim: string) =>
  c.email === undefined || c.email_verified === undefined || c[roleClaim.split('.')[0]!] === undefined;

function failure(e: unknown, what: string): OidcFailure {
  if (e instanceof OidcFailure) return e;
  if (e instanceof oidc.AuthorizationResponseError)
    return new OidcFailure(
      'refused',
      `The issuer refused: ${e.error}${e.error_description ? ` (${e.error_description})` : ''}`,
    );
  if (e instanceof oidc.ResponseBodyError)
    return new OidcFailure(
      'refused',
      `The issuer refused ${what}: ${e.error}${e.error_description ? ` (${e.error_description})` : ''}`,
    );
  const code = (e as { code?: unknown }).code;
  // A fetch that failed (no connection, a timeout) is the issuer out of reach; anything else is its answer refused.
  const cause = (e as { cause?: unknown }).cause;
  if (e instanceof TypeError || cause instanceof TypeError || code === 'OAUTH_TIMEOUT')
    return new OidcFailure('unreachable', `The issuer could not be reached for ${what}`);
  return new OidcFailure('refused', `The issuer's answer to ${what} was refused: ${(e as Error).message ?? String(e)}`);
}

export function oidcIssuer(config: OidcConfig): OidcIssuer {
  let discovered: Promise<oidc.Configuration> | undefined;
  const configuration = (): Promise<oidc.Configuration> => {
    discovered ??= oidc
      .discovery(
        new URL(config.issuer),
        config.clientId,
        config.clientSecret === undefined ? {} : { client_secret: config.clientSecret },
        config.clientSecret === undefined ? oidc.None() : oidc.ClientSecretBasic(config.clientSecret),
        config.allowHttp ? { execute: [oidc.allowInsecureRequests] } : {},
      )
      .catch((e: unknown) => {
        discovered = undefined;
        throw failure(e, 'discovery');
      });
    return discovered;
  };
  return {
    async begin() {
      const c = await configuration();
      const flow: OidcFlow = {
        state: oidc.randomState(),
        nonce: oidc.randomNonce(),
        verifier: oidc.randomPKCECodeVerifier(),
      };
      const url = oidc.buildAuthorizationUrl(c, {
        redirect_uri: config.redirectUri,
        scope: config.scopes,
        state: flow.state,
        nonce: flow.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(flow.verifier),
        code_challenge_method: 'S256',
      });
      return { url: url.href, flow };
    },
    async finish(callback, flow) {
      const c = await configuration();
      try {
        const tokens = await oidc.authorizationCodeGrant(c, callback, {
          expectedState: flow.state,
          expectedNonce: flow.nonce,
          pkceCodeVerifier: flow.verifier,
          idTokenExpected: true,
        });
        const idClaims = tokens.claims();
        if (!idClaims) throw new OidcFailure('refused', 'The issuer sent no ID token');
        const claims: Claims = { ...idClaims };
        if (needsUserinfo(claims, config.roleClaim) && tokens.access_token && c.serverMetadata().userinfo_endpoint) {
          const info = await oidc.fetchUserInfo(c, tokens.access_token, idClaims.sub);
          // The ID token's claims win; userinfo only fills what it left out.
          for (const [k, v] of Object.entries(info)) if (claims[k] === undefined) claims[k] = v;
        }
        return claims;
      } catch (e) {
        throw failure(e, 'the code exchange');
      }
    },
    async logoutUrl() {
      try {
        const c = await configuration();
        if (!c.serverMetadata().end_session_endpoint) return null;
        return oidc.buildEndSessionUrl(c, {
          client_id: config.clientId,
          post_logout_redirect_uri: config.postLogoutUri,
        }).href;
      } catch {
        return null;
      }
    },
  };
}
