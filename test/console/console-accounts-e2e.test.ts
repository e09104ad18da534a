// The console's Accounts page in a real browser (Debian's chromium driven by playwright-core): an account created there
// with a quota and a monthly budget; a token created in it with the token form's account picker; a chat call of that
// token through the openai SDK shows as the account's spend (balance, budget, per model, by period); a top-up
// submitted with a double click credits once; an edit keeps the top-up; the bill grouped by account and the
// overview's busiest accounts show it; revoking the account in the page refuses its token.
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, useBrowser } from '../support/browser.ts';
import { useHarness } from '../support/harness.ts';
import { openaiClient } from '../support/sdk.ts';

const t = useHarness();
const browser = useBrowser('console accounts e2e');
let page: Page;
beforeAll(() => void (HAVE_CHROMIUM && (page = browser.page)));
const errors = browser.errors;

const heading = () => page.locator('main h1').first();
const nav = (name: string) =>
  page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name, exact: true });
const MODEL = 'qwx3.7-plus';
const units = (micro: number) => (micro / 1_000_000).toFixed(6);

type AccountView = {
  id: string;
  name: string;
  quota: number;
  spent: number;
  budgets: Array<{ period: string; limit: number }>;
  revoked_at: number | null;
};
type LedgerRow = { kind: string; amount: number; token_id: string };
const stored = async (id: string) => (await (await t.h.admin(`/admin/accounts/${id}`)).json()) as AccountView;
const ledger = async (q: string) =>
  ((await (await t.h.admin(`/admin/ledger?${q}`)).json()) as { data: LedgerRow[] }).data;

describe.skipIf(!HAVE_CHROMIUM)('console: accounts', { timeout: 120_000 }, () => {
  let accountId = '';
  let secret = '';
  let tokenId = '';
  let charge = 0;

  it('creates an account with a quota and a monthly budget', async () => {
    await page.goto(`${t.h.url}/console`);
    await page.getByLabel('Admin key').fill(t.h.adminKey);
    await page.keyboard.press('Enter');
    await expect.poll(() => heading().textContent()).toBe('Overview');
    await nav('Accounts').click();
    await expect.poll(() => heading().textContent()).toBe('Accounts');
    await page.getByLabel('Name', { exact: true }).fill('Acme e2e');
    await page.getByLabel('Quota in units (empty = unlimited)').fill('10');
    await page.getByLabel('Monthly budget in units (empty = none)').fill('5');
    await page.getByLabel('Time zone of the budget periods (IANA name; empty = UTC)').fill('Europe/Paris');
    await page.getByRole('button', { name: 'Create account' }).click();
    // The new account opens: its id is in the address, its panel takes the focus.
    await expect.poll(() => page.url()).toMatch(/#\/accounts\/acc_/);
    accountId = decodeURIComponent(page.url().split('#/accounts/')[1]!);
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('account-title');
    expect(await stored(accountId)).toMatchObject({
      name: 'Acme e2e',
      quota: 10_000_000,
      budgets: [{ period: 'month', limit: 5_000_000 }],
      time_zone: 'Europe/Paris',
    });
    await expect
      .poll(() => page.locator(`#accounts tr[data-account-id="${accountId}"]`).textContent())
      .toContain('month 5.00');
  });

  it("creates a token in the account with the token form's account picker; a metered call of it is the account's spend", async () => {
    await nav('Tokens').click();
    await expect.poll(() => heading().textContent()).toBe('Tokens');
    await page.getByLabel('Name', { exact: true }).fill('acme-app');
    await expect
      .poll(() => page.getByLabel('Account', { exact: true }).locator('option').allTextContents())
      .toContain(`Acme e2e (${accountId})`);
    await page.getByLabel('Account', { exact: true }).selectOption(accountId);
    await page.getByRole('button', { name: 'Create token' }).click();
    await expect.poll(() => page.locator('#new-secret').textContent()).toMatch(/^\s*tw-/);
    secret = (await page.locator('#new-secret').textContent())!.trim();
    const row = page.locator('tr', { hasText: 'acme-app' });
    tokenId = (await row.getAttribute('data-token-id'))!;
    expect(((await (await t.h.admin(`/admin/tokens/${tokenId}`)).json()) as { account_id: string }).account_id).toBe(
      accountId,
    );
    // The list names the token's account.
    expect(await row.getByRole('link', { name: 'Acme e2e' }).getAttribute('href')).toBe(`#/accounts/${accountId}`);

    const answer = await openaiClient(t.h, secret).chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'hello account' }],
    });
    expect(answer.choices[0]?.message.content).toBeTruthy();
    [{ amount: charge }] = (await ledger(`token_id=${tokenId}`)) as [LedgerRow];
    expect(charge).toBeGreaterThan(0);

    await row.getByRole('link', { name: 'Acme e2e' }).click();
    await expect.poll(() => page.locator('#account-tokens').textContent()).toContain('acme-app');
    await expect
      .poll(() => page.locator('#account-balance').textContent())
      .toContain(`Spent${units(charge).replace(/0{1,4}$/, '')}`);
    const month = page.locator('#account-budgets tbody tr', { hasText: 'Month' });
    expect(await month.locator('td').nth(0).textContent()).toBe('5.00');
    expect(Number(await month.locator('td').nth(1).textContent()) * 1_000_000).toBeCloseTo(charge, 0);
    const model = page.locator('#account-usage tbody tr', { hasText: MODEL });
    expect(await model.locator('td').nth(0).textContent()).toBe('1');
    expect(await model.locator('td').nth(1).textContent()).toBe(units(charge));
    // Spend by period: today's bar and its figures.
    const today = new Date().toISOString().slice(0, 10);
    await expect
      .poll(() => page.locator('#account-spend tbody tr', { hasText: today }).locator('td').nth(1).textContent())
      .toBe(units(charge));
    expect(await page.locator('.chart canvas').count()).toBeGreaterThanOrEqual(1);
  });

  it('a top-up submitted with a double click credits the account once; an edit of its budget keeps the top-up', async () => {
    const sent: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith(`/admin/accounts/${accountId}/topup`))
        sent.push((JSON.parse(r.postData() ?? '{}') as { idempotency_key: string }).idempotency_key);
    });
    await page.getByLabel('Amount to add in units').fill('2.5');
    await page.getByRole('button', { name: 'Add to quota' }).dblclick();
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'Added' }).textContent())
      .toMatch(/Added 2\.50; the quota is now 12\.50/);
    expect((await stored(accountId)).quota).toBe(12_500_000);
    expect(new Set(sent).size).toBe(1);
    expect((await ledger(`token_id=${accountId}`)).filter((l) => l.kind === 'credit').map((l) => l.amount)).toEqual([
      2_500_000,
    ]);

    await page.getByLabel('Monthly budget in units (empty = none)').fill('6');
    await page.getByLabel('Daily budget in units (empty = none)').fill('1');
    await page.getByRole('button', { name: 'Save account' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved' }).count()).toBe(1);
    expect(await stored(accountId)).toMatchObject({
      quota: 12_500_000,
      budgets: [
        { period: 'day', limit: 1_000_000 },
        { period: 'month', limit: 6_000_000 },
      ],
    });
    await expect.poll(() => page.locator('#account-budgets tbody tr').count()).toBe(2);
    // The edit form is made again from the stored account: the quota with the top-up.
    expect(await page.getByLabel('Quota in units (empty = unlimited)').inputValue()).toBe('12.5');
  });

  it('the bill grouped by account shows the charge and the top-up; its CSV holds the line', async () => {
    const plain = (await (await t.h.admin('/admin/tokens', { method: 'POST', json: { name: 'loose' } })).json()) as {
      token: string;
    };
    await openaiClient(t.h, plain.token).chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'no account' }],
    });
    await page.getByRole('link', { name: 'Bills of this account' }).click();
    await expect.poll(() => heading().textContent()).toBe('Bills');
    expect(await page.getByLabel('Group by').inputValue()).toBe('account');
    await expect.poll(() => page.getByLabel('Account', { exact: true }).inputValue()).toBe(accountId);
    const line = page.locator(`#bill-accounts tbody tr[data-account-id="${accountId}"]`);
    await expect.poll(() => line.count()).toBe(1);
    const cells = await line.locator('td').allTextContents();
    expect(cells[1]).toBe('1');
    expect(cells[2]).toBe(units(charge));
    expect(cells[5]).toBe('2.50');
    await expect.poll(() => page.locator('.chart canvas').count()).toBe(1);
    // Every account: the call of the token without one is its own line.
    await page.getByLabel('Account', { exact: true }).selectOption('');
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => page.locator('#bill-accounts tbody tr').count()).toBe(2);
    expect(await page.locator('#bill-accounts tbody tr[data-account-id=""]').textContent()).toContain('No account');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download CSV per account' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('tollway-bill-day-by-account.csv');
    const csv = readFileSync((await download.path())!, 'utf8')
      .split('\r\n')
      .filter(Boolean);
    expect(csv[0]).toBe(
      'account_id,account_name,period,period_start,entries,amount_micro,amount_units,list_amount_micro,credit_micro',
    );
    expect(csv).toContain(
      `${accountId},Acme e2e,day,${new Date().toISOString().slice(0, 10)},1,${charge},${units(charge)},${charge},2500000`,
    );
  });

  it('the overview groups the busiest by account', async () => {
    await nav('Overview').click();
    await page.getByRole('button', { name: 'By account' }).click();
    const top = page.locator('table', { hasText: 'Top accounts' });
    await expect
      .poll(() => top.locator('tbody tr', { hasText: 'Acme e2e' }).locator('td').first().textContent())
      .toBe('1');
    expect(await top.textContent()).toContain('No account');
    await page.getByRole('button', { name: 'By token' }).click();
    await expect.poll(() => page.locator('table', { hasText: 'Top tokens' }).textContent()).toContain('acme-app');
  });

  it('revokes the account in the page: its token is refused; the page fits a phone', async () => {
    await page.goto(`${t.h.url}/console#/accounts/${accountId}`);
    await page.getByRole('button', { name: 'Revoke account Acme e2e' }).click();
    await page.getByRole('button', { name: 'Confirm revoking account Acme e2e' }).click();
    await expect
      .poll(() => page.locator(`#accounts tr[data-account-id="${accountId}"] .pill`).textContent())
      .toBe('revoked');
    expect((await stored(accountId)).revoked_at).not.toBeNull();
    const refused = await openaiClient(t.h, secret)
      .models.list()
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${t.h.url}/console#/accounts/${accountId}`);
    await expect.poll(() => page.locator('#account-usage tbody tr').count()).toBe(1);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 860 });
    expect(errors).toEqual([]);
  });
});
