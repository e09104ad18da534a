// Single sign-on to the console, in a real browser (Debian's chromium driven by playwright-core) against a real
// OpenID provider (oidc-provider, PKCE required): a person signs in through the issuer and gets the role their
// groups map to (a viewer sees no write control, an admin does); a person in no mapped group, or of another e-mail
// domain, is refused with a page and nothing is made; signing out ends the session and goes through the issuer's
// sign-out. The gateway is reached through its public URL (a forwarder on a port known before it starts, as the
// issuer must know the redirect address).
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, useBrowser } from '../support/browser.ts';
import { useHarness } from '../support/harness.ts';
import { startTestProvider, type TestProvider } from '../support/oidc-provider.ts';
import { type PublicForwarder, startPublicForwarder } from '../support/public-forwarder.ts';

const env: Record<string, string> = {};
let provider: TestProvider;
let front: PublicForwarder;
let publicUrl = '';

beforeAll(async () => {
  front = await startPublicForwarder();
  publicUrl = front.url;
  provider = await startTestProvider(publicUrl, {
    vera: { email: 'vera@staff.test', name: 'Vera Viewer', groups: ['support', 'everyone'] },
    ada: { email: 'ada@staff.test', name: 'Ada Admin', groups: ['everyone', 'admins'] },
    mallory: { email: 'mallory@staff.test', name: 'Mallory', groups: ['everyone'] },
    eve: { email: 'eve@elsewhere.test', name: 'Eve', groups: ['admins'] },
  });
  Object.assign(env, {
    TOLLWAY_PUBLIC_URL: publicUrl,
    TOLLWAY_OIDC_ISSUER: provider.issuer,
    TOLLWAY_OIDC_CLIENT_ID: provider.clientId,
    TOLLWAY_OIDC_CLIENT_SECRET: provider.clientSecret,
    TOLLWAY_OIDC_NAME: 'Test IdP',
    TOLLWAY_OIDC_ROLES: 'admins:admin,support:viewer',
    TOLLWAY_OIDC_EMAIL_DOMAINS: 'staff.test',
  });
});
const t = useHarness({ env });
const browser = useBrowser('console single sign-on e2e');
let page: Page;
beforeAll(() => {
  front.pointAt(Number(new URL(t.h.url).port));
  if (HAVE_CHROMIUM) page = browser.page;
});
afterAll(async () => {
  await front.close();
  await provider.close();
});

const heading = () => page.locator('main h1').first().textContent();
const people = async () =>
  ((await (await t.h.admin('/admin/users?limit=100')).json()) as { data: Array<{ email: string; role: string }> }).data;
const auditOf = async (action: string) =>
  (
    (await (await t.h.admin('/admin/audit?limit=200')).json()) as {
      data: Array<{
        action: string;
        target: string;
        person: { id: string; name: string } | null;
        detail?: Record<string, unknown>;
      }>;
    }
  ).data.filter((a) => a.action === action);

/** From the console's sign-in page through the issuer's login (any password) and consent. */
async function throughIssuer(login: string): Promise<void> {
  // No one is signed in at the issuer from an earlier test: its login page comes each time.
  await page.context().clearCookies();
  await page.goto(`${publicUrl}/console/`);
  await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
  await page.locator('input[name=login]').fill(login);
  await page.locator('input[name=password]').fill('any password');
  await page.locator('button[type=submit]').click();
  // The consent page, the first time this person meets the client.
  await page.waitForURL((u) => u.href.startsWith(publicUrl) || u.pathname.includes('/interaction/'));
  if (!page.url().startsWith(publicUrl)) await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL((u) => u.href.startsWith(publicUrl));
}

async function signOutEverywhere(): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  // The issuer's own sign-out asks, then sends the browser back to the console.
  await page.getByRole('button', { name: 'Yes, sign me out' }).click();
  await page.waitForURL(`${publicUrl}/console/`);
  await expect.poll(() => page.getByRole('link', { name: 'Sign in with Test IdP' }).count()).toBe(1);
}

describe.skipIf(!HAVE_CHROMIUM)('console: single sign-on', { timeout: 120_000 }, () => {
  it('a person signs in through the issuer as the role their groups map to; a viewer sees no write control', async () => {
    await throughIssuer('vera');
    await expect.poll(heading).toBe('Overview');
    expect(await page.locator('#signed-in-as').textContent()).toBe('Vera Viewer · viewer');
    await page.getByRole('link', { name: 'Tokens' }).click();
    await expect.poll(heading).toBe('Tokens');
    expect(await page.getByRole('button', { name: 'Create token' }).count()).toBe(0);
    // The person was made by e-mail, in the mapped role, and the sign-in audited naming them.
    const vera = (await people()).find((p) => p.email === 'vera@staff.test');
    expect(vera?.role).toBe('viewer');
    const lines = await auditOf('console.sso.signin');
    expect(lines.map((l) => l.detail?.email)).toEqual(['vera@staff.test']);
    expect(lines[0]!.person?.name).toBe('Vera Viewer');
  });

  it('signing out ends the session and goes through the issuer sign-out', async () => {
    const cookie = (await page.context().cookies(publicUrl)).find((c) => c.name === 'tollway_console')!;
    expect(cookie).toBeDefined();
    const before = await t.h.fetch('/console/api/session', { headers: { cookie: `tollway_console=${cookie.value}` } });
    expect(before.status).toBe(200);
    await signOutEverywhere();
    const after = await t.h.fetch('/console/api/session', { headers: { cookie: `tollway_console=${cookie.value}` } });
    expect(after.status).toBe(401);
  });

  it('another group maps to another role: an admin sees the write controls', async () => {
    await throughIssuer('ada');
    await expect.poll(() => page.locator('#signed-in-as').textContent()).toBe('Ada Admin · admin');
    await page.getByRole('link', { name: 'Tokens' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Create token' }).count()).toBe(1);
    await signOutEverywhere();
  });

  it('a person in no mapped group, or of a domain not admitted, is refused with a page; nothing is made', async () => {
    for (const [login, email, says] of [
      ['mallory', 'mallory@staff.test', 'is in no group this console maps to a role'],
      ['eve', 'eve@elsewhere.test', 'is not one this console admits'],
    ] as const) {
      const answers: number[] = [];
      const seen = (r: { url(): string; status(): number }) =>
        r.url().includes('/console/sso/callback') && answers.push(r.status());
      page.on('response', seen);
      await throughIssuer(login);
      page.off('response', seen);
      expect(answers).toEqual([403]);
      expect(await page.locator('h1').textContent()).toBe('No access to this console');
      expect(await page.locator('#sso-message').textContent()).toContain(says);
      expect(await page.locator('#request-id').textContent()).toMatch(/\S/);
      expect((await page.context().cookies(publicUrl)).some((c) => c.name === 'tollway_console')).toBe(false);
      expect((await people()).some((p) => p.email === email)).toBe(false);
      const refused = await auditOf('console.sso.refused');
      expect(refused.some((l) => l.detail?.email === email)).toBe(true);
      expect(browser.errors).toEqual([]);
    }
  });

  it('a replayed callback (the same code and flow cookie) is refused with a page, and opens no session', async () => {
    let replay: { url: string; cookie: string } | undefined;
    const keep = async (r: { url(): string; allHeaders(): Promise<Record<string, string>> }) => {
      if (r.url().includes('/console/sso/callback'))
        replay = { url: r.url(), cookie: (await r.allHeaders()).cookie ?? '' };
    };
    page.on('request', keep);
    await throughIssuer('vera');
    page.off('request', keep);
    await expect.poll(() => page.locator('#signed-in-as').textContent()).toBe('Vera Viewer · viewer');
    expect(replay?.cookie).toContain('tollway_sso=');
    const again = await fetch(replay!.url, { headers: { cookie: replay!.cookie }, redirect: 'manual' });
    expect(again.status).toBe(400);
    expect(again.headers.get('content-type')).toContain('text/html');
    expect(again.headers.getSetCookie().some((c) => /^tollway_console=[^;]/.test(c))).toBe(false);
    expect(await again.text()).toContain('Sign-in failed');
    await signOutEverywhere();
  });

  it('a disabled person is refused, though their groups map to a role', async () => {
    const ada = (await people()).find((p) => p.email === 'ada@staff.test') as unknown as { id: string };
    expect((await t.h.admin(`/admin/users/${ada.id}`, { method: 'PATCH', json: { disabled: true } })).status).toBe(200);
    await throughIssuer('ada');
    expect(await page.locator('h1').textContent()).toBe('No access to this console');
    expect(await page.locator('#sso-message').textContent()).toContain('was disabled');
    expect((await page.context().cookies(publicUrl)).some((c) => c.name === 'tollway_console')).toBe(false);
  });
});

/** The sign-in's start, as a browser would follow it: the flow cookie and the issuer's address with its state. */
async function started(): Promise<{ cookie: string; state: string; location: URL }> {
  const r = await fetch(`${publicUrl}/console/sso/start`, { redirect: 'manual' });
  expect(r.status).toBe(303);
  const location = new URL(r.headers.get('location')!);
  const cookie = r.headers
    .getSetCookie()
    .find((c) => c.startsWith('tollway_sso='))!
    .split(';')[0]!;
  return { cookie, state: location.searchParams.get('state')!, location };
}

describe('console: single sign-on callback, bad input', () => {
  it('the start sends the browser to the issuer with a state, a nonce and an S256 PKCE challenge', async () => {
    const { location, cookie } = await started();
    expect(location.origin).toBe(provider.issuer);
    for (const p of ['state', 'nonce', 'code_challenge']) expect(location.searchParams.get(p)).toMatch(/^[\w-]{20,}$/);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    expect(location.searchParams.get('redirect_uri')).toBe(`${publicUrl}/console/sso/callback`);
    // Sealed: neither the state nor the verifier can be read from the cookie.
    expect(cookie).not.toContain(location.searchParams.get('state')!);
  });

  it('a missing or forged state, a forged cookie, an error from the issuer or no code: a 400 page and no session', async () => {
    const before = (await people()).length;
    const { cookie, state } = await started();
    const forgedCookie = `tollway_sso=${encodeURIComponent('v1:AAAA:BBBB:CCCC')}`;
    const cases: Array<[string, string | undefined, string]> = [
      [`?code=abc&state=${state}`, undefined, 'did not start here'],
      [`?code=abc&state=${state}`, forgedCookie, 'did not start here'],
      ['?code=abc', cookie, 'does not match'],
      ['?code=abc&state=forged-state-value', cookie, 'does not match'],
      [`?error=access_denied&error_description=no+thanks&state=${state}`, cookie, 'access_denied: no thanks'],
      [`?state=${state}`, cookie, 'no authorization code'],
      [`?code=not-a-code-the-issuer-gave&state=${state}`, cookie, 'Sign-in failed'],
    ];
    for (const [query, sent, says] of cases) {
      const r = await fetch(`${publicUrl}/console/sso/callback${query}`, {
        headers: sent ? { cookie: sent } : {},
        redirect: 'manual',
      });
      expect(r.status, query).toBe(400);
      expect(r.headers.get('content-type')).toContain('text/html');
      expect(r.headers.getSetCookie().some((c) => /^tollway_console=[^;]/.test(c))).toBe(false);
      const body = await r.text();
      expect(body, query).toContain(says);
      expect(body).toContain(`<code id="request-id">${r.headers.get('x-request-id')}</code>`);
    }
    expect((await people()).length).toBe(before);
  });

  it('GET /console/sso names the issuer for the sign-in page', async () => {
    const r = await t.h.fetch('/console/sso');
    expect(await r.json()).toEqual({ enabled: true, name: 'Test IdP', start_url: '/console/sso/start' });
  });
});
