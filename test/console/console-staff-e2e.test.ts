// Staff in the console, in a real browser (Debian's chromium driven by playwright-core): the Users page adds a person
// and shows their key once, with a copy button; that key signs a viewer in, who sees no write control and no Users
// page; the audit page filters by person.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, useBrowser } from '../support/browser.ts';
import { useHarness } from '../support/harness.ts';

const t = useHarness();
const browser = useBrowser('console staff e2e');
let page: Page;
beforeAll(() => {
  if (HAVE_CHROMIUM) page = browser.page;
});

const heading = () => page.locator('main h1').first().textContent();

async function signIn(key: string): Promise<void> {
  await page.goto(`${t.h.url}/console`);
  await page.getByLabel('Admin key').fill(key);
  await page.keyboard.press('Enter');
  await expect.poll(heading).toBe('Overview');
}

describe.skipIf(!HAVE_CHROMIUM)('console: staff', { timeout: 120_000 }, () => {
  let viewerKey = '';

  it('the Users page adds a person and shows their key once, with a copy button', async () => {
    await t.h.token({ name: 'existing' });
    await signIn(t.h.adminKey);
    expect(await page.locator('#signed-in-as').textContent()).toBe('Admin key · owner');
    await page.getByRole('link', { name: 'Users' }).click();
    await expect.poll(heading).toBe('Users');
    await page.getByLabel('Name').fill('Vera Viewer');
    await page.getByLabel('E-mail').fill('vera@staff.test');
    await page.getByLabel('Role', { exact: true }).selectOption('viewer');
    await page.getByRole('button', { name: 'Add person' }).click();
    await expect.poll(() => page.locator('#new-staff-key').count()).toBe(1);
    viewerKey = (await page.locator('#new-staff-key').textContent())!.trim();
    expect(viewerKey).toMatch(/^tws-[A-Za-z0-9]{43}$/);
    expect(await page.getByRole('button', { name: 'Copy key' }).isVisible()).toBe(true);
    await expect.poll(() => page.locator('tbody tr[data-person-id]').count()).toBe(1);
    // Done: the key is gone from the page, and no reload brings it back.
    await page.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => page.locator('#new-staff-key').count()).toBe(0);
    await page.reload();
    await expect.poll(() => page.locator('tbody tr[data-person-id]').count()).toBe(1);
    expect(await page.content()).not.toContain(viewerKey);
    // Its keys: one, live, by its prefix only.
    await page.getByRole('button', { name: 'Keys of vera@staff.test' }).click();
    await expect.poll(() => page.locator('tr[data-key-id]').count()).toBe(1);
    expect(await page.locator('tr[data-key-id]').textContent()).toContain(viewerKey.slice(0, 10));
    expect(await page.content()).not.toContain(viewerKey);
  });

  it('a viewer signed in with their key sees no write control and no Users page', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Admin key').fill(viewerKey);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#signed-in-as').textContent()).toBe('Vera Viewer · viewer');
    expect(await page.getByRole('link', { name: 'Users' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Tokens' }).click();
    await expect.poll(() => page.locator('tr[data-token-id]').count()).toBe(2);
    expect(await page.getByRole('button', { name: 'Create token' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^(Rotate|Revoke)/ }).count()).toBe(0);
    // Reading stays: the token's panel opens, without its forms.
    await page.locator('tr[data-token-id] button').first().click();
    await expect.poll(() => page.getByRole('button', { name: 'Close' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: /Top up|Save|Rotate/ }).count()).toBe(0);
    for (const [link, button] of [
      ['Accounts', 'Create account'],
      ['Webhooks', 'Create webhook'],
    ] as const) {
      await page.getByRole('link', { name: link }).click();
      await expect.poll(heading).toBe(link);
      expect(await page.getByRole('button', { name: button }).count()).toBe(0);
    }
  });

  it('the audit page filters by person', async () => {
    const add = await t.h.admin('/admin/users', {
      method: 'POST',
      json: { name: 'Otto Operator', email: 'otto@staff.test', role: 'operator' },
    });
    const otto = (await add.json()) as { id: string; key: { id: string; secret: string } };
    const made = await t.h.fetch('/admin/tokens', {
      method: 'POST',
      token: otto.key.secret,
      json: { name: 'otto-tok' },
    });
    expect(made.status).toBe(201);
    await page.getByRole('link', { name: 'Audit' }).click();
    await expect.poll(heading).toBe('Audit');
    // Everyone's changes first; then Otto's only, by the person filter.
    await expect.poll(() => page.locator('tr[data-audit-id]').count()).toBeGreaterThan(1);
    await page.getByLabel('Person').fill(otto.id);
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => page.locator('tr[data-audit-id]').count()).toBe(1);
    const row = await page.locator('tr[data-audit-id]').textContent();
    expect(row).toContain('Otto Operator');
    expect(row).toContain(otto.key.id);
    expect(row).toContain('token.create');
  });
});
