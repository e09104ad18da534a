// A real OpenID provider for single sign-on tests (oidc-provider, its built-in login and consent pages): one
// confidential client that must use PKCE, and test people whose claims include an e-mail and groups. Any password is
// taken; the login names the person. It listens on `localhost`, another site than the gateway's 127.0.0.1, so a
// cookie the sign-in needs across the issuer's redirect back is tested as a browser treats it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestPerson {
  email: string;
  email_verified?: boolean;
  name: string;
  groups: string[];
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The test people by login; a test may change them between sign-ins. */
  people: Map<string, TestPerson>;
  close(): Promise<void>;
}

export const TEST_CLIENT_ID = 'tollway-console';
export const TEST_CLIENT_SECRET = 'a-test-client-secret-of-some-length';

/** A provider for a gateway reached at `publicUrl` (its redirect and post-logout addresses are registered). */
export async function startTestProvider(publicUrl: string, people: Record<string, TestPerson>): Promise<TestProvider> {
  const byLogin = new Map(Object.entries(people));
  let handle: ReturnType<Provider['callback']> | undefined;
  const server: Server = createServer((req, res) => handle?.(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://localhost:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: TEST_CLIENT_ID,
        client_secret: TEST_CLIENT_SECRET,
        redirect_uris: [`${publicUrl}/console/sso/callback`],
        post_logout_redirect_uris: [`${publicUrl}/console/`],
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    // Every client must send a PKCE challenge (a confidential one too).
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
    cookies: { keys: ['a-test-cookie-key-for-the-provider'] },
    findAccount: (_ctx: unknown, id: string) => {
      const p = byLogin.get(id);
      if (!p) return undefined;
      return {
        accountId: id,
        claims: () => ({
          sub: id,
          email: p.email,
          email_verified: p.email_verified ?? true,
          name: p.name,
          groups: p.groups,
        }),
      };
    },
  });
  handle = provider.callback();
  return {
    issuer,
    clientId: TEST_CLIENT_ID,
    clientSecret: TEST_CLIENT_SECRET,
    people: byLogin,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
