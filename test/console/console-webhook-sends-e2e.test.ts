// The console's webhook sends in a real browser (Debian's chromium driven by playwright-core), against a receiver
// that verifies Standard Webhooks signatures: a webhook created there shows its secret in view, under the button
// that made it, at 1366 and at 390 px, and its copy button copies it; "Send test" delivers a signed event the
// receiver verifies and says so; the deliveries table names what fired each delivery (holder, threshold); "Redeliver"
// sends a delivery again; the edit form changes the webhook, and a test to a disabled one is refused on its row.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, useBrowser } from '../support/browser.ts';
import { useHarness } from '../support/harness.ts';
import { startVerifyingReceiver, type VerifyingReceiver } from '../support/verifying-receiver.ts';

const t = useHarness({
  env: {
    TOLLWAY_ALLOW_PRIVATE_NETWORK: '1',
    TOLLWAY_ALERT_CHECK_MS: '3600000',
    TOLLWAY_WEBHOOK_TICK_MS: '600000',
  },
});
const browser = useBrowser('console webhook sends e2e');
let page: Page;
let rx: VerifyingReceiver;
beforeAll(async () => {
  if (HAVE_CHROMIUM) page = browser.page;
  rx = await startVerifyingReceiver();
});
afterAll(() => rx.close());

/** Whether the element's whole box is inside the viewport (what the operator sees without scrolling). */
async function inView(selector: string): Promise<boolean> {
  const box = await page.locator(selector).boundingBox();
  const v = page.viewportSize()!;
  return box !== null && box.x >= 0 && box.y >= 0 && box.x + box.width <= v.width && box.y + box.height <= v.height;
}

/** Create a webhook from the form; its secret must be in view, the copy button focused, and copy must copy it. */
async function createInView(url: string): Promise<{ id: string; secret: string }> {
  await page.getByLabel('URL', { exact: true }).fill(url);
  await page.getByRole('button', { name: 'Create webhook' }).click();
  await expect.poll(() => page.locator('#new-webhook-secret').textContent()).toMatch(/^\s*whsec_/);
  const secret = (await page.locator('#new-webhook-secret').textContent())!.trim();
  await expect.poll(() => inView('#new-webhook-secret')).toBe(true);
  expect(await inView('.webhook-secret button:text("Copy secret")')).toBe(true);
  expect(await page.evaluate<string | null>('document.activeElement?.textContent ?? null')).toBe('Copy secret');
  await page.keyboard.press('Enter');
  await expect.poll(() => page.evaluate<string>('navigator.clipboard.readText()')).toBe(secret);
  const id = (await page.locator('#new-webhook-secret-title').textContent())!.replace('Signing secret of ', '');
  return { id, secret };
}

describe.skipIf(!HAVE_CHROMIUM)('console: webhook test, redeliver, edit', { timeout: 120_000 }, () => {
  let hook = { id: '', secret: '' };

  it('shows the new secret in view at 1366 and 390 px, and copies it', async () => {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.h.url });
    await page.setViewportSize({ width: 1366, height: 768 });
    await page.goto(`${t.h.url}/console`);
    await page.getByLabel('Admin key').fill(t.h.adminKey);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('main h1').first().textContent()).toBe('Overview');
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await expect.poll(() => page.locator('main h1').first().textContent()).toBe('Webhooks');
    hook = await createInView(rx.url);
    rx.secret = hook.secret;
    await page.getByRole('button', { name: 'Done' }).click();
    await page.setViewportSize({ width: 390, height: 844 });
    const narrow = await createInView(`${rx.url}/narrow`);
    expect(narrow.secret).not.toBe(hook.secret);
    await page.setViewportSize({ width: 1366, height: 768 });
    await expect.poll(() => page.locator('table.webhooks tbody tr').count()).toBe(2);
  });

  it('sends a signed test event the receiver verifies, and shows it among the deliveries', async () => {
    await page.getByRole('button', { name: `Send test to ${rx.url}`, exact: true }).click();
    const row = page.locator('table.webhooks tbody tr', { hasText: hook.id });
    await expect
      .poll(() => row.locator('.webhook-outcome').textContent())
      .toBe('Test event delivered: the receiver answered 200.');
    expect(rx.hits.map((h) => h.verified?.type ?? `unverified ${h.answered}`)).toEqual(['webhook.test']);
    await row.getByRole('link', { name: 'Deliveries' }).click();
    const rows = page.locator('table.webhook-deliveries tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toMatch(/webhook\.test.*delivered/);
  });

  it('names the holder and threshold of a spending alert, and redelivers a delivery', async () => {
    const tok = (await (
      await t.h.admin('/admin/tokens', { method: 'POST', json: { name: 'nightly-batch' } })
    ).json()) as { id: string };
    await t.h.gw.deps.alerts.spendCrossed({
      holderKind: 'token',
      holderId: tok.id,
      limitKind: 'quota',
      periodKey: '1000',
      spent: 850,
      limit: 1000,
    });
    await t.h.gw.alerts.dispatcher.deliverDue();
    await page.getByRole('button', { name: 'Refresh' }).click();
    const rows = page.locator('table.webhook-deliveries tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    const spend = rows.filter({ hasText: 'spend.threshold' });
    const cells = await spend.locator('td').allTextContents();
    expect(cells.slice(1, 5)).toEqual(['spend.threshold', `token nightly-batch ${tok.id}`, '80 %', 'delivered']);

    const test = rows.filter({ hasText: 'webhook.test' });
    const deliveryId = (await test.locator('code').last().textContent())!;
    const before = rx.hits.length;
    await page.getByRole('button', { name: `Redeliver ${deliveryId}` }).click();
    await expect
      .poll(() => page.locator('section[aria-labelledby="deliveries-title"] .webhook-outcome').textContent())
      .toBe(`Redelivery of ${deliveryId} delivered: the receiver answered 200.`);
    expect(rx.hits.length).toBe(before + 1);
    expect(rx.hits.at(-1)!.headers['webhook-id']).toBe(deliveryId);
    expect(rx.hits.at(-1)!.verified?.type).toBe('webhook.test');
    await expect.poll(() => test.locator('td.num').allTextContents()).toEqual(['2', '200']);
  });

  it('edits a webhook; a test to a disabled one is refused on its row', async () => {
    await page.getByRole('button', { name: `Edit ${rx.url}`, exact: true }).click();
    await expect.poll(() => page.evaluate<string | null>('document.activeElement?.id ?? null')).toBe('wh-edit-url');
    const edit = page.locator('form[aria-labelledby="wh-edit-title"]');
    await edit.getByLabel('hold.reaped').uncheck();
    await edit.getByLabel('Enabled').uncheck();
    await edit.getByRole('button', { name: 'Save webhook' }).click();
    await expect.poll(() => edit.count()).toBe(0);
    const saved = (await (await t.h.admin(`/admin/webhooks/${hook.id}`)).json()) as {
      events: string[];
      enabled: boolean;
    };
    expect(saved.enabled).toBe(false);
    expect(saved.events).not.toContain('hold.reaped');
    expect(saved.events).toContain('spend.threshold');
    const row = page.locator('table.webhooks tbody tr', { hasText: hook.id });
    await expect.poll(() => row.locator('.pill').textContent()).toBe('disabled');
    const hits = rx.hits.length;
    await page.getByRole('button', { name: `Send test to ${rx.url}`, exact: true }).click();
    await expect.poll(() => row.getByRole('alert').textContent()).toMatch(/is disabled: enable it before testing it/);
    expect(rx.hits.length).toBe(hits);
    expect(browser.errors).toEqual([]);
  });
});
