// Single sign-on to the customer portal, in a real browser (Debian's chromium) against a real OpenID provider
// (oidc-provider, PKCE required): a member of one account signs in by their verified e-mail and lands in that
// account's portal; a member of two accounts picks one and lands in it; a person who is nobody's member, or whose
// e-mail the issuer did not verify, is refused with a page and gets no session.
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
    mia: { email: 'mia@acme.test', name: 'Mia', groups: [] },
    sam: { email: 'sam@both.test', name: 'Sam', groups: [] },
    nobody: { email: 'nobody@elsewhere.test', name: 'Nobody', groups: [] },
    unverified: { email: 'mia@acme.test', email_verified: false, name: 'Not Mia', groups: [] },
  });
  Object.assign(env, {
    TOLLWAY_PUBLIC_URL: publicUrl,
    TOLLWAY_OIDC_ISSUER: provider.issuer,
    TOLLWAY_OIDC_CLIENT_ID: provider.clientId,
    TOLLWAY_OIDC_CLIENT_SECRET: provider.clientSecret,
    TOLLWAY_OIDC_NAME: 'Test IdP',
    TOLLWAY_OIDC_ROLES: 'admins:admin',
    TOLLWAY_OIDC_EMAIL_DOMAINS: 'staff.test',
  });
});
const t = useHarness({ env });
const browser = useBrowser('portal single sign-on e2e');
let page: Page;
const accounts: Record<string, string> = {};

async function account(name: string): Promise<string> {
  const r = await t.h.admin('/admin/accounts', { method: 'POST', json: { name, quota: 5_000_000 } });
  expect(r.status).toBe(201);
  return ((await r.json()) as { id: string }).id;
}

async function member(accountId: string, name: string, email: string): Promise<void> {
  const r = await t.h.admin(`/admin/accounts/${accountId}/members`, { method: 'POST', json: { name, email } });
  expect(r.status).toBe(201);
}

beforeAll(async () => {
  front.pointAt(Number(new URL(t.h.url).port));
  if (!HAVE_CHROMIUM) return;
  page = browser.page;
  accounts.acme = await account('Acme');
  accounts.globex = await account('Globex');
  await member(accounts.acme, 'Mia', 'mia@acme.test');
  await member(accounts.acme, 'Sam at Acme', 'sam@both.test');
  await member(accounts.globex, 'Sam at Globex', 'sam@both.test');
});
afterAll(async () => {
  await front.close();
  await provider.close();
});

const heading = () => page.locator('main h1').first().textContent();

/** Through the issuer's login (any password) and consent, until the browser is back at the gateway. */
async function throughIssuer(login: string): Promise<void> {
  await page.locator('input[name=login]').fill(login);
  await page.locator('input[name=password]').fill('any password');
  await page.locator('button[type=submit]').click();
  await backAtGateway();
}

/** The consent page comes the first time a person meets the client; a signed-in person comes back by itself. */
async function backAtGateway(): Promise<void> {
  await page.waitForURL((u) => u.href.startsWith(publicUrl) || u.pathname.includes('/interaction/'));
  if (!page.url().startsWith(publicUrl)) await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL((u) => u.href.startsWith(publicUrl));
}

async function startAtPortal(): Promise<void> {
  await page.context().clearCookies();
  await page.goto(`${publicUrl}/portal/`);
  await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
}

/** The portal session the browser holds, as the portal's API answers it (null: none). */
async function portalSession(): Promise<{ member: { email: string; account_id: string } } | null> {
  // Every cookie of the context: the portal's is on the path /portal.
  const cookie = (await page.context().cookies()).find((c) => c.name === 'tollway_portal');
  if (!cookie) return null;
  const r = await t.h.fetch('/portal/api/session', { headers: { cookie: `tollway_portal=${cookie.value}` } });
  return r.status === 200 ? ((await r.json()) as { member: { email: string; account_id: string } }) : null;
}

describe.skipIf(!HAVE_CHROMIUM)('portal: single sign-on', { timeout: 120_000 }, () => {
  it("a member of one account signs in by their verified e-mail and lands in that account's portal", async () => {
    await startAtPortal();
    await throughIssuer('mia');
    await expect.poll(heading).toBe('Usage');
    expect(await page.locator('#signed-in-as').textContent()).toContain('Acme');
    expect((await portalSession())?.member.email).toBe('mia@acme.test');
  });

  it('a member of two accounts chooses one and lands in it', async () => {
    await startAtPortal();
    await throughIssuer('sam');
    await expect.poll(() => page.locator('main h1').textContent()).toBe('Choose an account');
    expect(await portalSession()).toBeNull();
    const choices = page.locator('#sso-choices a');
    expect((await choices.allTextContents()).sort()).toEqual(['Acme', 'Globex']);
    await page.getByRole('link', { name: 'Globex' }).click();
    await backAtGateway();
    await expect.poll(heading).toBe('Usage');
    expect(await page.locator('#signed-in-as').textContent()).toContain('Globex');
    const session = await portalSession();
    expect(session?.member).toMatchObject({ email: 'sam@both.test', account_id: accounts.globex });
  });

  it("nobody's member, or an e-mail the issuer did not verify: a page saying so, and no session", async () => {
    for (const login of ['nobody', 'unverified']) {
      await startAtPortal();
      await throughIssuer(login);
      expect(await page.locator('main h1').textContent()).toBe('No access to the portal');
      const message = (await page.locator('#sso-message').textContent()) ?? '';
      expect(message).toContain(login === 'nobody' ? 'is not a member of any customer account' : 'no verified e-mail');
      expect(await page.locator('#request-id').textContent()).toMatch(/\S/);
      expect(await portalSession()).toBeNull();
      expect(await page.getByRole('link', { name: "Back to the portal's sign-in" }).count()).toBe(1);
    }
  });
});
