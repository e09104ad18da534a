// The console's Webhooks page in a real browser (Debian's chromium driven by playwright-core): a webhook created there
// shows its secret once, and that secret verifies the alert deliveries (the `standardwebhooks` package, as the
// operator's receiver would); its deliveries are listed with their outcome after a failed attempt and its retry; a
// refusal is shown; disabling it shows at once.
import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, useBrowser } from '../support/browser.ts';
import { useHarness } from '../support/harness.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { eventually } from '../support/wait.ts';

const t = useHarness({
  env: {
    TOLLWAY_ALLOW_PRIVATE_NETWORK: '1',
    TOLLWAY_ALERT_CHECK_MS: '3600000',
    TOLLWAY_WEBHOOK_BACKOFF_MS: '10',
    TOLLWAY_WEBHOOK_TICK_MS: '20',
  },
});
const browser = useBrowser('console webhooks e2e');
let page: Page;
let rx: Receiver;
beforeAll(async () => {
  if (HAVE_CHROMIUM) page = browser.page;
  rx = await startReceiver({ path: '/alerts', failFirst: 1 });
});
afterAll(() => rx.close());

describe.skipIf(!HAVE_CHROMIUM)('console: webhooks', { timeout: 120_000 }, () => {
  let secret = '';

  it('creates a webhook and shows its signing secret once', async () => {
    await page.goto(`${t.h.url}/console`);
    await page.getByLabel('Admin key').fill(t.h.adminKey);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('main h1').first().textContent()).toBe('Overview');
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await expect.poll(() => page.locator('main h1').first().textContent()).toBe('Webhooks');
    await page.getByLabel('URL').fill(rx.url);
    await page.getByLabel('Description (optional)').fill('on-call');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await expect.poll(() => page.locator('#new-webhook-secret').textContent()).toMatch(/^\s*whsec_/);
    secret = (await page.locator('#new-webhook-secret').textContent())!.trim();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    expect(await page.locator('tbody tr').first().textContent()).toContain('on-call');
  });

  it('lists the deliveries with their outcome; the secret verifies them', async () => {
    const ch = t.h.gw.deps.channels.all()[0]!;
    expect(await t.h.gw.deps.alerts.breakerChanged({ id: ch.id, name: ch.name }, 'opened')).toBe(true);
    t.h.gw.alerts.dispatcher.kick();
    expect(await eventually(() => rx.hits.some((h) => h.answered === 200), 20_000)).toBe(true);
    const hit = rx.hits.find((h) => h.answered === 200)!;
    const body = new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>) as { type: string };
    expect(body.type).toBe('breaker.opened');
    await page.getByRole('link', { name: 'Deliveries' }).click();
    const row = page.locator('section[aria-labelledby="deliveries-title"] tbody tr');
    await expect.poll(() => row.count()).toBe(1);
    const text = await row.first().textContent();
    expect(text).toContain('breaker.opened');
    expect(text).toContain('delivered');
    expect(await row.first().locator('td.num').allTextContents()).toEqual(['2', '200']);
  });

  it('shows a refusal, and disabling shows at once', async () => {
    await page.getByLabel('URL').fill(rx.url);
    for (const box of await page.getByRole('checkbox').all()) await box.uncheck();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/events must be a non-empty array/);
    await page.getByRole('button', { name: `Disable ${rx.url}` }).click();
    await expect.poll(() => page.locator('tbody tr .pill').first().textContent()).toBe('disabled');
    const list = (await (await t.h.admin('/admin/webhooks')).json()) as { data: Array<{ enabled: boolean }> };
    expect(list.data.map((w) => w.enabled)).toEqual([false]);
  });
});
