// The console's Credit page in a real browser (Debian's chromium driven by playwright-core): a batch created there
// shows its codes once, and its copy button puts them on the clipboard; a code redeemed by API shows among the
// redemptions and in its batch's codes; a Stripe payment (signed by the `stripe` package) and a forged one show among
// the payment events with their outcome; revoking a batch shows at once; a refused form says why; the page fits a
// 390 px wide screen.
import type { Page } from 'playwright-core';
import Stripe from 'stripe';
import { beforeAll, describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, useBrowser } from '../support/browser.ts';
import { useHarness } from '../support/harness.ts';

const WHSEC = 'whsec_console_test_0123456789abcdef';
const t = useHarness({ env: { TOLLWAY_STRIPE_WEBHOOK_SECRET: WHSEC, TOLLWAY_STRIPE_CREDIT_RATES: 'usd=0.01' } });
const browser = useBrowser('console credit e2e');
let page: Page;
beforeAll(() => {
  if (HAVE_CHROMIUM) page = browser.page;
});

const heading = () => page.locator('main h1').first().textContent();

async function openCredit() {
  await page.getByRole('link', { name: 'Overview' }).click();
  await expect.poll(heading).toBe('Overview');
  await page.getByRole('link', { name: 'Credit' }).click();
  await expect.poll(heading).toBe('Credit');
}

describe.skipIf(!HAVE_CHROMIUM)('console: credit', { timeout: 120_000 }, () => {
  let codes: string[] = [];

  it('creates a batch and shows its codes once, with a copy button', async () => {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.h.url });
    await page.goto(`${t.h.url}/console`);
    await page.getByLabel('Admin key').fill(t.h.adminKey);
    await page.keyboard.press('Enter');
    await expect.poll(heading).toBe('Overview');
    await page.getByRole('link', { name: 'Credit' }).click();
    await expect.poll(heading).toBe('Credit');
    await page.getByLabel('Name (optional)').fill('launch promo');
    await page.getByLabel('Number of codes').fill('3');
    await page.getByLabel('Units per code').fill('2.5');
    await page.getByRole('button', { name: 'Create codes' }).click();
    await expect.poll(async () => (await page.locator('#new-codes').textContent()) ?? '').toMatch(/twc_/);
    codes = (await page.locator('#new-codes').textContent())!.trim().split('\n');
    expect(codes).toHaveLength(3);
    for (const c of codes) expect(c).toMatch(/^twc_[A-Za-z0-9]{24}$/);
    await page.getByRole('button', { name: 'Copy codes' }).click();
    await expect.poll(() => page.evaluate<string>('navigator.clipboard.readText()')).toBe(codes.join('\n'));
    const row = page.locator('section[aria-labelledby="batches-title"] tbody tr');
    await expect.poll(() => row.count()).toBe(1);
    const text = await row.first().textContent();
    expect(text).toContain('launch promo');
    expect(text).toContain('2.50');
    expect(text).toContain('0 / 3');
    // Shown once: after Done, and in the list, the codes are gone.
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.locator('#new-codes').count()).toBe(0);
    expect(await page.content()).not.toContain(codes[0]);
  });

  it('lists a redemption and the code it used', async () => {
    const tk = await t.h.token({ quota: 0 });
    const r = await t.h.fetch('/v1/credit/redeem', { method: 'POST', token: tk.secret, json: { code: codes[1] } });
    expect(r.status).toBe(200);
    await openCredit();
    const redemption = page.locator('section[aria-labelledby="redemptions-title"] tbody tr');
    await expect.poll(() => redemption.count()).toBe(1);
    const text = await redemption.first().textContent();
    expect(text).toContain(`twc_…${codes[1]!.slice(-4)}`);
    expect(text).toContain(tk.id);
    expect(text).toContain('2.50');
    await page.getByRole('link', { name: 'Codes' }).click();
    const code = page.locator('section[aria-labelledby="codes-title"] tbody tr');
    await expect.poll(() => code.count()).toBe(3);
    const states = await code.locator('.pill').allTextContents();
    expect(states.sort()).toEqual(['redeemed', 'unused', 'unused']);
  });

  it('lists the payment events with their outcome', async () => {
    const made = await t.h.admin('/admin/accounts', { method: 'POST', json: { name: 'payer', quota: 0 } });
    const acc = (await made.json()) as { id: string };
    const payload = JSON.stringify({
      id: 'evt_console_1',
      object: 'event',
      type: 'checkout.session.completed',
      data: {
        object: { client_reference_id: acc.id, amount_total: 2000, currency: 'usd', payment_status: 'paid' },
      },
    });
    const send = (secret: string) =>
      fetch(`${t.h.url}/webhooks/stripe`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret }),
        },
        body: payload,
      });
    expect((await send(WHSEC)).status).toBe(200);
    expect((await send(WHSEC)).status).toBe(200);
    expect((await send('whsec_forged_0000000000000000')).status).toBe(400);
    await openCredit();
    const rows = page.locator('section[aria-labelledby="payments-title"] tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    const texts = await rows.allTextContents();
    const paid = texts.find((x) => x.includes('evt_console_1'))!;
    expect(paid).toContain('credited');
    expect(paid).toContain(acc.id);
    expect(paid).toContain('20.00');
    expect(await rows.locator('td.num').allTextContents()).toContain('2');
    expect(texts.some((x) => x.includes('bad_signature'))).toBe(true);
  });

  it('revokes a batch, and shows a refusal', async () => {
    await page.getByRole('button', { name: 'Revoke launch promo' }).click();
    await page.getByRole('button', { name: 'Confirm revoke launch promo' }).click();
    const row = page.locator('section[aria-labelledby="batches-title"] tbody tr');
    await expect.poll(() => row.first().locator('.pill').textContent()).toBe('revoked');
    const list = (await (await t.h.admin('/admin/credit/batches')).json()) as { data: Array<{ state: string }> };
    expect(list.data.map((b) => b.state)).toEqual(['revoked']);
    await page.getByLabel('Units per code').fill('1');
    await page.getByLabel('Expires').fill('2020-01-01T00:00');
    await page.getByRole('button', { name: 'Create codes' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/expires_at must be a future time/);
    const after = (await (await t.h.admin('/admin/credit/batches')).json()) as { data: unknown[] };
    expect(after.data).toHaveLength(1);
    expect(browser.errors).toEqual([]);
  });

  it('fits a 390 px wide screen, a batch opened and new codes shown', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const batchId = ((await (await t.h.admin('/admin/credit/batches')).json()) as { data: Array<{ id: string }> })
      .data[0]!.id;
    await page.goto(`${t.h.url}/console#/credit/${batchId}`);
    await expect.poll(() => page.locator('section[aria-labelledby="codes-title"] tbody tr').count()).toBe(3);
    await page.getByLabel('Expires').fill('2099-01-01T00:00');
    await page.getByRole('button', { name: 'Create codes' }).click();
    await expect.poll(async () => (await page.locator('#new-codes').textContent()) ?? '').toMatch(/twc_/);
    await page.waitForLoadState('networkidle');
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 860 });
    expect(browser.errors).toEqual([]);
  });
});
