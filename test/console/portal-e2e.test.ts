// The customer portal in a real browser (Debian's chromium driven by playwright-core), at 1366 and at 390 px wide: a
// member signs in with their member key, sees the usage chart of their account, creates a token (its secret shown
// once, in view, with a copy button), redeems a credit code, and signs out; an operator issues a member in the
// console, whose key (shown once) signs in. No script error or CSP violation.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, useBrowser } from '../support/browser.ts';
import { postJson, useHarness } from '../support/harness.ts';

const t = useHarness();
const browser = useBrowser('portal e2e');
let page: Page;
let account = '';
let memberKey = '';
let codes: string[] = [];

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  page = browser.page;
  const a = await t.h.admin('/admin/accounts', { method: 'POST', json: { name: 'Acme', quota: 20_000_000 } });
  account = ((await a.json()) as { id: string }).id;
  const tk = await t.h.admin('/admin/tokens', { method: 'POST', json: { name: 'acme-main', account_id: account } });
  const secret = ((await tk.json()) as { token: string }).token;
  const used = await postJson(t.h, secret, '/v1/chat/completions', {
    model: 'qwx3.7-plus',
    messages: [{ role: 'user', content: 'hello' }],
  });
  expect(used.status).toBe(200);
  const m = await t.h.admin(`/admin/accounts/${account}/members`, {
    method: 'POST',
    json: { name: 'Ada Member', email: 'ada@acme.test' },
  });
  memberKey = ((await m.json()) as { key: { secret: string } }).key.secret;
  const b = await t.h.admin('/admin/credit/batches', {
    method: 'POST',
    json: { count: 2, amount: 1_500_000, expires_at: Date.now() + 3_600_000 },
  });
  expect(b.status).toBe(201);
  codes = ((await b.json()) as { codes: string[] }).codes;
});

const heading = () => page.locator('main h1').first().textContent();
const fits = async (width: number) =>
  expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);

async function journey(width: number, code: string) {
  await page.setViewportSize({ width, height: 860 });
  await page.goto(`${t.h.url}/portal`);
  await page.getByLabel('Member key').fill(memberKey);
  await page.keyboard.press('Enter');
  await expect.poll(heading).toBe('Usage');
  expect(await page.locator('#signed-in-as').textContent()).toContain('Acme');
  // The usage chart: an SVG with a bar for the day's use of the model.
  const chart = page.getByRole('img', { name: 'Spend per day by model' });
  await expect.poll(() => chart.locator('rect.bar').count()).toBeGreaterThan(0);
  expect(await page.locator('.portal-chart figcaption').first().textContent()).toContain('qwx3.7-plus');
  await fits(width);

  await page.getByRole('link', { name: 'Tokens' }).click();
  await expect.poll(heading).toBe('Tokens');
  const name = `made-at-${width}`;
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Quota (units, optional)').fill('2');
  await page.getByRole('button', { name: 'Create token' }).click();
  const secret = page.locator('#new-secret');
  await expect.poll(async () => (await secret.textContent()) ?? '').toMatch(/^tw-/);
  const shown = (await secret.textContent())!.trim();
  expect(await secret.isVisible()).toBe(true);
  const box = (await secret.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(width);
  await page.getByRole('button', { name: 'Copy', exact: true }).click();
  await expect.poll(() => page.evaluate<string>('navigator.clipboard.readText()')).toBe(shown);
  await expect.poll(() => page.locator('#token-list tbody tr', { hasText: name }).count()).toBe(1);
  await fits(width);
  // Shown once: after Done it is gone from the page.
  await page.getByRole('button', { name: 'Done' }).click();
  expect(await page.content()).not.toContain(shown);
  // The token works, as a token of the account.
  const r = await postJson(t.h, shown, '/v1/chat/completions', {
    model: 'qwx3.7-plus',
    messages: [{ role: 'user', content: 'x' }],
  });
  expect(r.status).toBe(200);

  await page.getByRole('link', { name: 'Credit and key' }).click();
  await expect.poll(heading).toBe('Credit and key');
  await page.getByRole('textbox', { name: 'Code' }).fill(code);
  await page.getByRole('button', { name: 'Redeem' }).click();
  await expect.poll(async () => (await page.locator('#redeem-done').textContent()) ?? '').toContain('1.50 credited');
  await fits(width);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect.poll(() => page.getByLabel('Member key').count()).toBe(1);
  const after = await page.evaluate<number>(`fetch('/portal/api/session').then((r) => r.status)`);
  expect(after).toBe(401);
}

describe.skipIf(!HAVE_CHROMIUM)('portal in a browser', { timeout: 120_000 }, () => {
  it('at 1366 px: sign in, usage chart, create a token, redeem a code, sign out', async () => {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.h.url });
    await journey(1366, codes[0]!);
    const acct = (await (await t.h.admin(`/admin/accounts/${account}`)).json()) as { quota: number };
    expect(acct.quota).toBe(21_500_000);
  });

  it('at 390 px: the same, nothing wider than the screen', async () => {
    await journey(390, codes[1]!);
    expect(browser.errors).toEqual([]);
  });

  it("an operator issues a member in the console's account page; the key, shown once, signs in to the portal", async () => {
    await page.setViewportSize({ width: 1366, height: 860 });
    await page.goto(`${t.h.url}/console#/accounts/${account}`);
    await page.getByLabel('Admin key').fill(t.h.adminKey);
    await page.keyboard.press('Enter');
    await page.getByLabel('Member name').fill('Grace');
    await page.getByLabel('Member e-mail').fill('grace@acme.test');
    await page.getByRole('button', { name: 'Issue member' }).click();
    const key = page.locator('#new-member-key');
    await expect.poll(async () => (await key.textContent()) ?? '').toMatch(/^twm-/);
    const secret = (await key.textContent())!.trim();
    await expect.poll(() => page.locator('#account-members tbody tr', { hasText: 'grace@acme.test' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).not.toContain(secret);
    await page.goto(`${t.h.url}/portal`);
    await page.getByLabel('Member key').fill(secret);
    await page.keyboard.press('Enter');
    await expect.poll(heading).toBe('Usage');
    expect(await page.locator('#signed-in-as').textContent()).toContain('Grace');
    expect(browser.errors).toEqual([]);
  });
});
