// OpenAPI paths of the console's single sign-on (routes/console/sso.ts; docs/operations.md#single-sign-on). These are
// browser addresses: they answer with redirects and HTML pages, not JSON, but for /console/sso itself.
import { query, str, obj, ok, type Operation } from './schema.ts';

const page = (description: string) => ({ description, content: { 'text/html': { schema: str() } } });

const op = (summary: string, extra: Omit<Operation, 'summary'>): Operation => ({
  tags: ['console'],
  summary,
  security: [],
  ...extra,
});

const redirect = (description: string) => ({ description, headers: { location: { schema: str() } } });

export function ssoPaths(): Record<string, Record<string, Operation>> {
  return {
    '/console/sso': {
      get: op('Whether single sign-on is on (TOLLWAY_OIDC_ISSUER), and the issuer name the sign-in page shows', {
        responses: {
          '200': ok(
            obj(
              {
                enabled: { type: 'boolean' },
                name: str('"Sign in with <name>" (TOLLWAY_OIDC_NAME; the issuer host by default)'),
                start_url: str('/console/sso/start'),
              },
              ['enabled'],
            ),
          ),
        },
      }),
    },
    '/portal/sso/start': {
      get: op(
        "Begin a customer portal member's single sign-on through the same issuer (the flow marked for the portal; the callback is /console/sso/callback): the verified e-mail names the member; a member of several accounts is shown a page to choose one (account= starts again for it); nobody's member, or an unverified e-mail: a 403 page",
        {
          parameters: [
            {
              name: 'account',
              in: 'query',
              required: false,
              schema: { type: 'string' },
              description: 'the account chosen',
            },
          ],
          responses: {
            '303': redirect("To the issuer's sign-in"),
            '404': page('Single sign-on is off'),
            '502': page('The issuer could not be reached'),
          },
        },
      ),
    },
    '/console/sso/start': {
      get: op(
        "Begin single sign-on: 303 to the issuer's authorization endpoint (code flow, state, nonce, S256 PKCE challenge); the state, nonce and verifier wait in a sealed HttpOnly cookie for 10 minutes",
        {
          responses: {
            '303': redirect("To the issuer's sign-in"),
            '404': page('Single sign-on is off'),
            '502': page('The issuer could not be reached'),
          },
        },
      ),
    },
    '/console/sso/callback': {
      get: op(
        "The issuer's answer (the redirect URI, <TOLLWAY_PUBLIC_URL>/console/sso/callback): the code is exchanged with the PKCE verifier, the ID token checked (signature, issuer, audience, expiry, nonce); a verified e-mail in an allowed domain whose groups map to a role gets a console session (the person found by e-mail or made, their role the mapped one) and a 303 to /console/. Every failure is an HTML page naming the request id, with no session",
        {
          parameters: [
            query('code', str(), 'The authorization code'),
            query('state', str(), 'Must match the one the start sealed in the cookie'),
            query('error', str(), "The issuer's refusal (then a 400 page)"),
            query('error_description', str(), "The issuer's words for it"),
          ],
          responses: {
            '303': redirect('Signed in: the session cookie is set; to /console/'),
            '400': page(
              'No or a forged state, a missing or expired flow cookie, an error from the issuer, no code, or a code the issuer refused (a replayed one)',
            ),
            '403': page(
              'No access: e-mail not verified or not in TOLLWAY_OIDC_EMAIL_DOMAINS, no group mapped to a role, or the person disabled; nothing is made',
            ),
            '404': page('Single sign-on is off'),
            '502': page('The issuer could not be reached'),
          },
        },
      ),
    },
    '/console/sso/logout': {
      get: op(
        "After the console's sign-out (DELETE /console/api/session): 303 to the issuer's end_session_endpoint (RP-initiated logout, back to /console/), or to /console/ when it has none",
        { responses: { '303': redirect("To the issuer's sign-out or the console") } },
      ),
    },
  };
}
