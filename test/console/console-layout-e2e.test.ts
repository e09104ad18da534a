// The console's layout in a real browser (Debian's chromium driven by playwright-core), on a 390 px phone and a 1366 px
// laptop: an error shows its request id once and fits the phone; a new token's secret shows in the window, wherever
// the button that made it was, and its copy button puts it on the clipboard; every page with a table fits the phone,
// nothing sticking out or hidden behind a sideways scroll, its money cells in sight; the request log shows all its
// columns at 1366 px, long endpoints and ids included.
import type { Page, Response } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, useBrowser } from '../support/browser.ts';
import { useHarness } from '../support/harness.ts';
import { inWindow, measure } from '../support/layout.ts';
import { openaiClient } from '../support/sdk.ts';
import { createVideo, FAST_TASK_ENV, waitTerminal } from '../support/videos.ts';

const t = useHarness({ env: { ...FAST_TASK_ENV, TOLLWAY_ALLOW_PRIVATE_NETWORK: '1' } });
const browser = useBrowser('console layout e2e');
let page: Page;
beforeAll(() => void (HAVE_CHROMIUM && (page = browser.page)));

const PHONE = { width: 390, height: 844 };
const LAPTOP = { width: 1366, height: 768 };
const heading = () => page.locator('main h1').first();
const textOf = (selector: string) => async () => (await page.locator(selector).first().textContent()) ?? '';
const LONG_URL = `https://hooks.example.com/services/T0000000/B0000000000/${'X'.repeat(48)}`;

/** What the pages list: ids made through the admin API and the gateway. */
interface Made {
  account: string;
  token: string;
  request: string;
  task: string;
  batch: string;
}

/**
 * Every console page that shows a table, with how many money cells it shows at least (the rows the test made): a new
 * page is one line here.
 */
const PAGES = (m: Made): Array<[path: string, money: number]> => [
  ['overview', 0],
  ['tokens', 4],
  ['accounts', 1],
  [`accounts/${m.account}`, 1],
  ['logs', 2],
  [`logs/${m.request}`, 1],
  [`bills?token_id=${m.token}`, 1],
  ['tasks', 0],
  [`tasks/${m.task}`, 1],
  ['channels', 0],
  ['prices', 1],
  ['prices/qwx-image-2.0', 0],
  ['price-groups', 0],
  ['reconcile', 1],
  ['credit', 1],
  [`credit/${m.batch}`, 0],
  ['webhooks', 0],
  ['audit', 0],
  ['users', 0],
];

const json = async <T>(r: Promise<globalThis.Response>): Promise<T> => (await (await r).json()) as T;
const idOf = (r: Response) => r.headers()['x-gateway-request-id'] ?? '';
const times = (text: string, part: string) => text.split(part).length - 1;

async function make(): Promise<Made> {
  const account = (
    await json<{ id: string }>(t.h.admin('/admin/accounts', { method: 'POST', json: { name: 'acme', quota: 9e6 } }))
  ).id;
  const tok = await json<{ id: string; token: string }>(
    t.h.admin('/admin/tokens', {
      method: 'POST',
      json: { name: 'layout-app-with-a-rather-long-name', quota: 5e6, account_id: account },
    }),
  );
  const chat = await openaiClient(t.h, tok.token)
    .chat.completions.create({ model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'hello layout' }] })
    .withResponse();
  // The longest endpoint the request log shows (refused or not, an authenticated call is logged).
  await t.h.fetch('/vidx/v1/videos/multi-elements/preview-selection', { method: 'POST', token: tok.token, json: {} });
  const video = await createVideo(t.h, tok.token, { model: 'hhx-1.1-t2v', prompt: 'a lighthouse', seconds: 3 });
  const task = String(video.json.id);
  await waitTerminal(t.h, tok.token, task);
  const hook = await t.h.admin('/admin/webhooks', {
    method: 'POST',
    json: { url: LONG_URL, events: ['breaker.opened'], description: 'on-call' },
  });
  expect(hook.status).toBe(201);
  const batch = await json<{ id: string }>(
    t.h.admin('/admin/credit/batches', {
      method: 'POST',
      json: { count: 2, amount: 1e6, expires_at: Date.now() + 30 * 86_400_000, name: 'promo' },
    }),
  );
  const price = { unit: 'image', perImage: 250_000 };
  expect((await t.h.admin('/admin/prices/qwx-image-2.0', { method: 'PUT', json: price })).status).toBe(200);
  const group = { multiplier: 0.8, prices: { 'qwx-image-2.0': price } };
  expect((await t.h.admin('/admin/price-groups/partners', { method: 'PUT', json: group })).status).toBe(201);
  await t.h.admin('/admin/users', { method: 'POST', json: { name: 'Otto', email: 'otto@staff.test', role: 'viewer' } });
  return { account, token: tok.id, request: chat.response.headers.get('x-gateway-request-id')!, task, batch: batch.id };
}

describe.skipIf(!HAVE_CHROMIUM)('console layout at 390 and 1366 px', { timeout: 180_000 }, () => {
  let made: Made;
  beforeAll(async () => {
    made = await make();
  }, 120_000);

  it('a refused sign-in shows its request id once, and the message fits a phone', async () => {
    await page.setViewportSize(PHONE);
    await page.goto(`${t.h.url}/console`);
    await page.getByLabel('Admin key').fill('not-the-key-0123456789');
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/console/api/session') && r.request().method() === 'POST'),
      page.keyboard.press('Enter'),
    ]);
    expect(refused.status()).toBe(403);
    const id = idOf(refused);
    expect(id).toMatch(/^req_/);
    await expect.poll(textOf('#signin-error')).toMatch(/not the admin key/);
    const shown = { text: await textOf('#signin-error')(), inWindow: await inWindow(page, '#signin-error') };
    const layout = await measure(page);
    // Signed in before the checks: the later tests need the session whatever these find.
    await page.getByLabel('Admin key').fill(t.h.adminKey);
    await page.keyboard.press('Enter');
    await expect.poll(() => heading().textContent()).toBe('Overview');
    expect(times(shown.text, id)).toBe(1);
    expect(shown.inWindow).toBe(true);
    expect(layout.outside).toEqual([]);
    expect(layout.scrolling).toEqual([]);
  });

  it('a form the gateway refuses shows the request id once', async () => {
    await page.goto(`${t.h.url}/console#/tokens`);
    await page.getByLabel('Name', { exact: true }).fill('refused');
    await page.getByLabel('Models (comma-separated; empty = all)').fill('no-such-model');
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/admin/tokens') && r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Create token' }).click(),
    ]);
    expect(refused.status()).toBe(400);
    const alert = page.locator('form[aria-labelledby="tok-title"] [role="alert"]');
    await expect.poll(() => alert.textContent()).toMatch(/Unknown model/);
    expect(times((await alert.textContent()) ?? '', idOf(refused))).toBe(1);
    expect(await inWindow(page, 'form[aria-labelledby="tok-title"] [role="alert"]')).toBe(true);
  });

  it("a new token's secret shows in the window, focused, at 1366 and 390 px; Copy puts it on the clipboard", async () => {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.h.url });
    for (const size of [LAPTOP, PHONE]) {
      await page.setViewportSize(size);
      await page.goto(`${t.h.url}/console#/tokens`);
      await page.getByLabel('Name', { exact: true }).fill(`made-at-${size.width}`);
      await page.getByLabel('Models (comma-separated; empty = all)').fill('');
      await page.getByRole('button', { name: 'Create token' }).click();
      const secret = page.locator('#new-secret');
      await expect.poll(textOf('#new-secret')).toMatch(/^tw-/);
      expect(await inWindow(page, '#new-secret'), `at ${size.width}`).toBe(true);
      expect(await page.evaluate("document.activeElement?.closest('.secret') !== null")).toBe(true);
      const card = page.locator('.secret');
      await card.getByRole('button', { name: 'Copy', exact: true }).click();
      const shown = (await secret.textContent())!.trim();
      await expect.poll(() => page.evaluate<string>('navigator.clipboard.readText()')).toBe(shown);
      await expect.poll(() => card.getByRole('status').first().textContent()).toBe('Copied.');
      await card.getByRole('button', { name: 'Done' }).click();
      expect(await page.content()).not.toContain(shown);
    }
    // A rotation from the list, far down the page on a phone: the new secret shows in the window as well.
    await page.getByRole('button', { name: 'Rotate made-at-1366' }).click();
    await expect.poll(textOf('#new-secret')).toMatch(/^tw-/);
    expect(await inWindow(page, '#new-secret')).toBe(true);
  });

  it('every page with a table fits a phone: nothing off the screen or scrolled away, every money cell in sight', async () => {
    await page.setViewportSize(PHONE);
    for (const [path, money] of PAGES(made)) {
      await page.goto(`${t.h.url}/console#/${path}`);
      await expect.poll(() => page.locator('main h1').count()).toBe(1);
      await expect.poll(() => page.locator('main table tbody tr').count(), { message: path }).toBeGreaterThan(0);
      await page.waitForLoadState('networkidle');
      const layout = await measure(page);
      expect(layout.outside, path).toEqual([]);
      expect(layout.scrolling, path).toEqual([]);
      expect(layout.money.length, path).toBeGreaterThanOrEqual(money);
      expect(
        layout.money.filter((c) => !c.seen),
        path,
      ).toEqual([]);
    }
    // The webhook's long URL wraps across the card's width, not a few letters a line.
    await page.goto(`${t.h.url}/console#/webhooks`);
    const url = page.locator('main tbody tr :is(th, td)', { hasText: 'hooks.example.com' }).first();
    await expect.poll(() => url.count()).toBe(1);
    const box = (await url.boundingBox())!;
    expect(box.width).toBeGreaterThan(PHONE.width * 0.7);
    expect(browser.errors).toEqual([]);
  });

  it('the request log shows every column within a 1366 px window, with no sideways scroll', async () => {
    await page.setViewportSize(LAPTOP);
    await page.goto(`${t.h.url}/console#/logs`);
    await expect.poll(() => page.locator('main tbody tr', { hasText: 'multi-elements' }).count()).toBe(1);
    await page.waitForLoadState('networkidle');
    const headers = page.locator('main table thead th');
    expect(await headers.count()).toBe(8);
    for (const th of await headers.all()) {
      const box = (await th.boundingBox())!;
      expect(box.x + box.width, (await th.textContent()) ?? '').toBeLessThanOrEqual(LAPTOP.width);
    }
    const layout = await measure(page);
    expect(layout.outside).toEqual([]);
    expect(layout.scrolling).toEqual([]);
    expect(layout.money.filter((c) => !c.seen)).toEqual([]);
    expect(browser.errors).toEqual([]);
  });
});
