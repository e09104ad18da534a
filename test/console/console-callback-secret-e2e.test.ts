// A token's callback secret in the console, in a real browser (Debian's chromium driven by playwright-core): the
// secret shown once at creation verifies the token's task callbacks with the `standardwebhooks` package, as the
// client's receiver would; a rotation in the token's panel shows the new one, the old one verifying on for the
// window; a rotation that stops the old one at once leaves only the newest. No secret is shown again.
import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, useBrowser } from '../support/browser.ts';
import { useHarness } from '../support/harness.ts';
import { startReceiver, type Hit, type Receiver } from '../support/receiver.ts';
import { call, type TaskData, vidxHarness } from '../support/vidx.ts';
import { eventually } from '../support/wait.ts';

const t = useHarness(vidxHarness({ env: { TOLLWAY_ALLOW_PRIVATE_NETWORK: '1' } }));
const browser = useBrowser('console callback secret e2e');
let page: Page;
let rx: Receiver;
beforeAll(async () => {
  if (HAVE_CHROMIUM) page = browser.page;
  rx = await startReceiver({ path: '/hooks' });
});
afterAll(() => rx.close());

const NAME = 'e2e-hooks';

/** A task of `token` with a callback; its delivery. */
async function callbackOf(token: string): Promise<Hit> {
  const c = await call<TaskData>(t.h, token, 'POST', '/vidx/v1/videos/text2video', {
    model_name: 'vidx-v2-5',
    prompt: 'console callback',
    callback_url: rx.url,
  });
  const id = c.body.data.task_id;
  // Bounded generously: a loaded machine may take more than until()'s few seconds for a task and its callback.
  expect(await eventually(() => rx.hits.some((h) => h.headers['webhook-id'] === `cb_${id}`), 30_000)).toBe(true);
  return rx.hits.find((h) => h.headers['webhook-id'] === `cb_${id}`)!;
}

const verifies = (secret: string, hit: Hit) => {
  try {
    new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
};

// Each test waits for tasks and their callbacks: on a loaded machine more than the default 30 s may pass.
describe.skipIf(!HAVE_CHROMIUM)("console: a token's callback secret", { timeout: 120_000 }, () => {
  let token = '';
  const secrets: string[] = [];

  it("creating a token shows its callback secret once; the client verifies the token's callbacks with it", async () => {
    await page.goto(`${t.h.url}/console`);
    await page.getByLabel('Admin key').fill(t.h.adminKey);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('main h1').first().textContent()).toBe('Overview');
    await page.goto(`${t.h.url}/console#/tokens`);
    await page.getByLabel('Name', { exact: true }).fill(NAME);
    await page.getByRole('button', { name: 'Create token' }).click();
    await expect.poll(() => page.locator('#new-callback-secret').textContent()).toMatch(/^whsec_/);
    token = (await page.locator('#new-secret').textContent())!.trim();
    secrets.push((await page.locator('#new-callback-secret').textContent())!.trim());
    const hit = await callbackOf(token);
    expect(verifies(secrets[0]!, hit)).toBe(true);
    // Another token's callback secret does not verify it.
    expect(verifies((await t.h.token()).callbackSecret, hit)).toBe(false);
  });

  it("rotating it in the token's panel shows the new one; the old one verifies too during the window", async () => {
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: `Usage & edit ${NAME}` }).click();
    await expect.poll(() => page.locator('#cbs-state').textContent()).toMatch(/^Issued /);
    await page.getByRole('button', { name: 'Rotate callback secret' }).dblclick();
    const shown = page.locator('#rotated-callback-secret');
    await expect.poll(() => shown.textContent()).toMatch(/^whsec_/);
    secrets.push((await shown.textContent())!.trim());
    expect(secrets[1]).not.toBe(secrets[0]);
    await expect.poll(() => page.locator('#cbs-state').textContent()).toMatch(/The previous one signs too until /);
    // However many requests the double click sent, one rotation: the shown secret is the one signing now.
    const audit = (await (await t.h.admin('/admin/audit?limit=50')).json()) as { data: Array<{ action: string }> };
    expect(audit.data.filter((a) => a.action === 'token.callback_secret.rotate')).toHaveLength(1);
    const hit = await callbackOf(token);
    expect(verifies(secrets[1]!, hit)).toBe(true);
    expect(verifies(secrets[0]!, hit)).toBe(true);
  });

  it('a rotation that stops the current one at once: only the newest verifies; no secret is shown again', async () => {
    await page.getByLabel('Stop signing with the current one at once').check();
    await page.getByRole('button', { name: 'Rotate callback secret' }).click();
    const shown = page.locator('#rotated-callback-secret');
    await expect.poll(async () => (await shown.textContent())?.trim()).not.toBe(secrets[1]);
    secrets.push((await shown.textContent())!.trim());
    await expect.poll(() => page.locator('#cbs-state').textContent()).not.toMatch(/previous one/);
    const hit = await callbackOf(token);
    expect(verifies(secrets[2]!, hit)).toBe(true);
    expect(verifies(secrets[1]!, hit)).toBe(false);
    expect(verifies(secrets[0]!, hit)).toBe(false);

    await page.reload();
    await page.getByRole('button', { name: `Usage & edit ${NAME}` }).click();
    await expect.poll(() => page.locator('#cbs-state').textContent()).toMatch(/^Issued /);
    expect(await page.content()).not.toContain('whsec_');
    expect(browser.errors).toEqual([]);
  });
});
