// The console's token usage, top-up and edit, and the bill per model, in a real browser (Debian's chromium driven by
// playwright-core): a chat call made through the openai SDK shows in the token's spend per model; a top-up submitted
// with a double click credits once (checked through the admin API); a limit edited in the page is stored and leaves
// the top-up alone; the Bills page shows the call's model line and its CSV download holds it; a token's own day budget
// set in the creation form, then changed and removed in its panel, is stored each time and shown in the panel.
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, useBrowser } from '../support/browser.ts';
import { useHarness } from '../support/harness.ts';
import { openaiClient } from '../support/sdk.ts';

const t = useHarness();

const browser = useBrowser('console tokens e2e');
let page: Page;
beforeAll(() => void (HAVE_CHROMIUM && (page = browser.page)));
const errors = browser.errors;

const heading = () => page.locator('main h1').first();
const MODEL = 'qwx3.7-plus';

type TokenView = { quota: number; rpm_limit: number | null; budgets: Array<{ period: string; limit: number }> };
type LedgerRow = { kind: string; model: string; amount: number; idempotency_key: string };
const stored = async (id: string) => (await (await t.h.admin(`/admin/tokens/${id}`)).json()) as TokenView;
const ledger = async (id: string) =>
  ((await (await t.h.admin(`/admin/ledger?token_id=${id}`)).json()) as { data: LedgerRow[] }).data;

describe.skipIf(!HAVE_CHROMIUM)('console: token usage, top-up, edit and the bill per model', () => {
  let tokenId = '';
  let charge = 0;

  it("signs in; a chat call through the openai SDK shows in the token's spend per model", async () => {
    const created = (await (
      await t.h.admin('/admin/tokens', { method: 'POST', json: { name: 'e2e-usage', quota: 2_000_000 } })
    ).json()) as {
      id: string;
      token: string;
    };
    tokenId = created.id;
    const answer = await openaiClient(t.h, created.token).chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'hello usage' }],
    });
    expect(answer.choices[0]?.message.content).toBeTruthy();
    [{ amount: charge }] = (await ledger(tokenId)).filter((l) => l.kind !== 'credit') as [LedgerRow];
    expect(charge).toBeGreaterThan(0);

    await page.goto(`${t.h.url}/console`);
    await page.getByLabel('Admin key').fill(t.h.adminKey);
    await page.keyboard.press('Enter');
    await expect.poll(() => heading().textContent()).toBe('Overview');
    await page.goto(`${t.h.url}/console#/tokens`);
    await page.getByLabel('Search tokens').fill('e2e-usage');
    await page.getByRole('button', { name: 'Usage & edit e2e-usage' }).click();
    // The panel takes the focus (keyboard and screen-reader users land on it).
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('panel-title');
    const row = page.locator('#token-usage tbody tr', { hasText: MODEL });
    await expect.poll(() => row.locator('td').nth(0).textContent()).toBe('1');
    expect(Number(await row.locator('td').nth(1).textContent()) * 1_000_000).toBeCloseTo(charge, 0);
    expect(await page.locator('#token-balance').textContent()).toContain('2.00');
  });

  it('a top-up submitted with a double click credits once; another submission credits again', async () => {
    // Every top-up request the page sends, with its idempotency key.
    const sent: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith(`/admin/tokens/${tokenId}/topup`))
        sent.push((JSON.parse(r.postData() ?? '{}') as { idempotency_key: string }).idempotency_key);
    });
    await page.getByLabel('Amount to add in units').fill('3');
    await page.getByRole('button', { name: 'Add to quota' }).dblclick();
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'Added' }).textContent())
      .toMatch(/Added 3\.00; the quota is now 5\.00/);
    expect((await stored(tokenId)).quota).toBe(5_000_000);
    // However many requests the double click sent, they were one submission: one key, one credit line.
    expect(sent.length).toBeGreaterThanOrEqual(1);
    expect(new Set(sent).size).toBe(1);
    expect((await ledger(tokenId)).filter((l) => l.kind === 'credit').map((l) => l.amount)).toEqual([3_000_000]);

    await page.getByLabel('Amount to add in units').fill('1.5');
    await page.getByRole('button', { name: 'Add to quota' }).click();
    await expect.poll(async () => (await stored(tokenId)).quota).toBe(6_500_000);
    expect(new Set(sent).size).toBe(2);
    expect(
      (await ledger(tokenId))
        .filter((l) => l.kind === 'credit')
        .map((l) => l.amount)
        .sort(),
    ).toEqual([1_500_000, 3_000_000]);
    await expect.poll(() => page.locator('#token-balance').textContent()).toContain('6.50');
  });

  it('edits a limit in the page: stored, shown in the list, and the top-ups are kept', async () => {
    await page.getByLabel('Requests per minute (empty = no limit)').fill('120');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved' }).count()).toBe(1);
    expect(await stored(tokenId)).toMatchObject({ rpm_limit: 120, quota: 6_500_000 });
    await expect.poll(() => page.locator(`tr[data-token-id="${tokenId}"] td`).nth(5).textContent()).toBe('120');
    // The edit form shows the stored values again: the quota with the top-ups.
    expect(await page.getByLabel('Quota in units (empty = unlimited)').inputValue()).toBe('6.5');
    const audit = (await (await t.h.admin('/admin/audit?limit=20')).json()) as {
      data: Array<{ actor: string; action: string; target: string }>;
    };
    const mine = audit.data.filter((a) => a.target === tokenId).map((a) => a.action);
    expect(mine.filter((a) => a === 'token.topup')).toHaveLength(2);
    expect(mine).toContain('token.update');
  });

  it('the Bills page shows the per-model line and the top-ups apart; its CSV download holds the line', async () => {
    await page.getByRole('link', { name: 'Bills of this token' }).click();
    await expect.poll(() => heading().textContent()).toBe('Bills');
    expect(await page.getByLabel('Token').inputValue()).toBe(tokenId);
    const line = page.locator('#bill-lines tbody tr', { hasText: MODEL });
    await expect.poll(() => line.count()).toBe(1);
    const cells = await line.locator('td').allTextContents();
    expect(cells[3]).toBe('1');
    expect(Number(cells[4]) * 1_000_000).toBeCloseTo(charge, 0);
    expect(await page.locator('#bill-credits').textContent()).toContain('4.500000');
    await expect.poll(() => page.locator('.chart canvas').count()).toBe(1);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download CSV per model' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('tollway-bill-day-by-model.csv');
    const csv = readFileSync((await download.path())!, 'utf8')
      .split('\r\n')
      .filter(Boolean);
    expect(csv[0]).toBe('token_id,token_name,period,period_start,kind,model,entries,amount_micro,amount_units');
    const day = new Date().toISOString().slice(0, 10);
    expect(csv.slice(1).map((r) => r.split(',').slice(0, 8))).toEqual([
      [tokenId, 'e2e-usage', 'day', day, 'charges', MODEL, '1', String(charge)],
      [tokenId, 'e2e-usage', 'day', day, 'credit', '', '2', '4500000'],
    ]);
  });

  it("a token's own day budget: set in the creation form, changed and removed in its panel, stored each time", async () => {
    await page.goto(`${t.h.url}/console#/tokens`);
    await expect.poll(() => heading().textContent()).toBe('Tokens');
    await page.getByLabel('Name', { exact: true }).fill('e2e-budget');
    await page.getByLabel('Daily budget in units (empty = none)').fill('1.5');
    await page.getByRole('button', { name: 'Create token' }).click();
    await expect.poll(() => page.locator('#new-secret').textContent()).toMatch(/^\s*tw-/);
    const id = (await page.locator('tr', { hasText: 'e2e-budget' }).getAttribute('data-token-id'))!;
    expect((await stored(id)).budgets).toEqual([{ period: 'day', limit: 1_500_000 }]);

    await page.getByRole('button', { name: 'Usage & edit e2e-budget' }).click();
    const day = page.locator('#token-budgets tbody tr', { hasText: 'Day' });
    await expect.poll(() => day.locator('td').nth(0).textContent()).toBe('1.50');
    const field = page.getByLabel('Daily budget in units (empty = none)');
    expect(await field.inputValue()).toBe('1.5');
    await field.fill('2.25');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(async () => (await stored(id)).budgets).toEqual([{ period: 'day', limit: 2_250_000 }]);
    await expect.poll(() => day.locator('td').nth(0).textContent()).toBe('2.25');
    expect(await field.inputValue()).toBe('2.25');

    await field.fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(async () => (await stored(id)).budgets).toEqual([]);
    await expect.poll(() => page.locator('#token-budgets').count()).toBe(0);
    expect(await field.inputValue()).toBe('');
  });

  it('the token panel and the bills fit a 390 px wide screen without horizontal scrolling; the panel closes from the keyboard', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${t.h.url}/console#/tokens`);
    await page.getByRole('button', { name: 'Usage & edit e2e-usage' }).click();
    await expect.poll(() => page.locator('#token-usage tbody tr').count()).toBe(1);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    // Closing the panel from the keyboard puts the focus back on the button that opened it.
    await page.getByRole('button', { name: 'Close' }).focus();
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.evaluate("document.activeElement?.getAttribute('aria-label')"))
      .toBe('Usage & edit e2e-usage');
    await page.goto(`${t.h.url}/console#/bills?token_id=${tokenId}`);
    await expect.poll(() => page.locator('#bill-lines tbody tr').count()).toBe(1);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 860 });
    expect(errors).toEqual([]);
  });
  it("a token of no quota in a used-up account shows the account's quota and none left, not unlimited", async () => {
    const acc = (await (
      await t.h.admin('/admin/accounts', { method: 'POST', json: { name: 'e2e-drained', quota: 0 } })
    ).json()) as { id: string };
    const tok = (await (
      await t.h.admin('/admin/tokens', { method: 'POST', json: { name: 'e2e-drained-app', account_id: acc.id } })
    ).json()) as { id: string };
    await page.goto(`${t.h.url}/console#/tokens`);
    await page.getByLabel('Search tokens').fill('e2e-drained-app');
    const cell = page.locator(`tr[data-token-id="${tok.id}"] [data-quota-left]`);
    await expect.poll(() => cell.textContent()).toMatch(/^account 0\.00.*none left$/);
    expect(errors).toEqual([]);
  });
});
