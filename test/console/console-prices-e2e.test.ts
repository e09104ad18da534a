// The console's prices in a real browser (Debian's chromium driven by playwright-core): sign in, open a model's price
// from the price table, set a new price with the keyboard and see its history row appear (old and new price, the
// console session as the actor), refuse a malformed amount in the page, reset to the catalogue price; the pages fit
// a 390 px wide phone screen.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, useBrowser } from '../support/browser.ts';
import { useHarness } from '../support/harness.ts';

const t = useHarness({ channels: false });

const browser = useBrowser('console prices e2e');
let page: Page;
beforeAll(() => void (HAVE_CHROMIUM && (page = browser.page)));
const errors = browser.errors;

const heading = () => page.locator('main h1').first();
const historyRows = () => page.locator('#price-history tbody tr');
type Change = { action: string; old_price: { perImage: number }; new_price: { perImage: number }; actor: string };
const apiHistory = async () =>
  ((await (await t.h.admin('/admin/prices/qwx-image-2.0/history')).json()) as { data: Change[] }).data;

describe.skipIf(!HAVE_CHROMIUM)('console prices in chromium', () => {
  it('signs in and lists every model with its price, unit and source', async () => {
    await page.goto(`${t.h.url}/console`);
    const key = page.getByLabel('Admin key');
    await expect.poll(() => key.isVisible()).toBe(true);
    await key.fill(t.h.adminKey);
    await page.keyboard.press('Enter');
    await expect.poll(() => heading().textContent()).toBe('Overview');
    await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Prices' }).click();
    await expect.poll(() => heading().textContent()).toBe('Prices');
    const row = page.locator('tr[data-model="qwx-image-2.0"]');
    await expect.poll(() => row.textContent()).toContain('per image');
    expect(await row.locator('td').nth(2).textContent()).toBe('0.20');
    expect(await row.locator('.pill').textContent()).toBe('catalogue');
    const listed = ((await (await t.h.admin('/admin/prices')).json()) as { data: unknown[] }).data.length;
    expect(await page.locator('main table tbody tr').count()).toBe(listed);
  });

  it("sets a price from the model's page with the keyboard; the history row appears", async () => {
    await page.getByRole('link', { name: 'qwx-image-2.0', exact: true }).click();
    await expect.poll(() => heading().textContent()).toBe('Price of qwx-image-2.0');
    await expect.poll(() => page.locator('main').textContent()).toMatch(/No change yet/);
    const field = page.getByLabel('Per image');
    expect(await field.inputValue()).toBe('0.2');
    // Typed key by key (the field keeps its focus while the page re-renders), sent with Enter.
    await field.fill('');
    await field.focus();
    await page.keyboard.type('0.35');
    expect(await field.inputValue()).toBe('0.35');
    await page.keyboard.press('Enter');
    await expect.poll(() => historyRows().count()).toBe(1);
    const cells = historyRows().first().locator('td');
    expect(await cells.nth(1).textContent()).toBe('set');
    expect(await cells.nth(2).textContent()).toBe('0.20');
    expect(await cells.nth(3).textContent()).toBe('0.35');
    expect(await cells.nth(4).textContent()).toMatch(/^console:csn_/);
    await expect.poll(() => page.locator('#current-price').textContent()).toContain('override');
    // The gateway prices with it, and the change is audited under the console session.
    expect(t.h.gw.deps.meter.price('qwx-image-2.0', { kind: 'images', images: 2 }).amount).toBe(700_000);
    const [stored] = await apiHistory();
    expect(stored).toMatchObject({ action: 'set', old_price: { perImage: 200_000 }, new_price: { perImage: 350_000 } });
    const audit = (
      (await (await t.h.admin('/admin/audit?limit=5')).json()) as {
        data: Array<{ action: string; target: string; actor: string }>;
      }
    ).data;
    expect(audit.find((a) => a.action === 'price.set' && a.target === 'qwx-image-2.0')?.actor).toBe(stored!.actor);
  });

  it('refuses a malformed amount in the page without a change', async () => {
    await page.getByLabel('Per image').fill('-1');
    await page.getByRole('button', { name: 'Set price' }).click();
    await expect
      .poll(() => page.locator('form [role="alert"]').textContent())
      .toMatch(/Per image: enter a number of units/);
    expect(await historyRows().count()).toBe(1);
    expect(await apiHistory()).toHaveLength(1);
  });

  it('resets to the catalogue price after a confirmation; the history shows both changes, newest first', async () => {
    await page.getByRole('button', { name: 'Reset to the catalogue price' }).click();
    await page.getByRole('button', { name: 'Confirm reset' }).click();
    await expect.poll(() => historyRows().count()).toBe(2);
    const newest = historyRows().first().locator('td');
    expect(await newest.nth(1).textContent()).toBe('reset to catalogue');
    expect(await newest.nth(2).textContent()).toBe('0.35');
    expect(await newest.nth(3).textContent()).toBe('0.20');
    await expect.poll(() => page.locator('#current-price').textContent()).toContain('catalogue');
    expect(await page.getByLabel('Per image').inputValue()).toBe('0.2');
    expect(t.h.gw.deps.meter.price('qwx-image-2.0', { kind: 'images', images: 1 }).amount).toBe(200_000);
  });

  it('the price pages fit a 390 px wide screen without horizontal scrolling', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const p of ['prices', 'prices/qwx-image-2.0', 'prices/qwx3-vl-plus']) {
      await page.goto(`${t.h.url}/console#/${p}`);
      await expect.poll(() => page.locator('main h1').count()).toBe(1);
      await page.waitForLoadState('networkidle');
      const width = await page.evaluate<number>('document.documentElement.scrollWidth');
      expect(width, p).toBeLessThanOrEqual(390);
    }
    await page.setViewportSize({ width: 1280, height: 860 });
    expect(errors).toEqual([]);
  });
});
