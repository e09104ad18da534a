// The operator console in a real browser (Debian's chromium driven by playwright-core): sign in with the keyboard,
// create a token in the page and read its secret there, call the gateway with it through the openai SDK, find the
// call in the request log by its X-Gateway-Request-Id, see its ledger line, revoke the token in the page and see
// the SDK refused; every page fits a 390 px wide phone screen. The run saves the overview's screenshot for the README.
import { join } from 'node:path';
import OpenAI from 'openai';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SIM_KEYS } from '../../simulator/index.ts';
import { HAVE_CHROMIUM, useBrowser } from '../support/browser.ts';
import { useHarness } from '../support/harness.ts';
import { openaiClient } from '../support/sdk.ts';
import { createVideo, FAST_TASK_ENV, waitTerminal } from '../support/videos.ts';

/** What the test reads of a <video> (the test's TypeScript has no DOM types). */
type VideoElement = { readyState: number; duration: number; error: { code: number } | null; currentSrc: string };

const t = useHarness({ env: FAST_TASK_ENV });

const browser = useBrowser('console e2e');
let page: Page;
beforeAll(() => void (HAVE_CHROMIUM && (page = browser.page)));
const errors = browser.errors;

const heading = () => page.locator('main h1').first();

/**
 * Polls that wait on data the page fetched: the overview's request-log reads can take more than a poll's default second
 * on a loaded CI host (seen on PostgreSQL).
 */
const SLOW = { timeout: 60_000 };

describe.skipIf(!HAVE_CHROMIUM)('operator console in chromium', () => {
  let tokenId = '';
  let secret = '';
  let requestId = '';

  it('signs in with the keyboard alone; a wrong key gets a clear message', async () => {
    await page.goto(`${t.h.url}/console`);
    const key = page.getByLabel('Admin key');
    await expect.poll(() => key.isVisible()).toBe(true);
    // The key field has focus (autofocus); Tab from the page start would reach it first as well.
    expect(await page.evaluate('document.activeElement?.id')).toBe('admin-key');
    await page.keyboard.type('wrong-admin-key-123456');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#signin-error').textContent()).toMatch(/not the admin key/);
    await key.fill('');
    await page.keyboard.type(t.h.adminKey);
    await page.keyboard.press('Enter');
    await expect.poll(() => heading().textContent()).toBe('Overview');
    // Nothing of the key is kept in the browser's storage.
    expect(
      await page.evaluate<string>(
        'JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie',
      ),
    ).not.toContain(t.h.adminKey);
    // Keyboard navigation: Tab reaches the navigation links, Enter follows one.
    // Sequential focus starts where the sign-in form was (inside main), so Tab may first pass the overview's
    // controls and wrap around to the navigation; how many depends on what the overview has loaded.
    let reached = false;
    for (let i = 0; i < 60 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = (await page.evaluate('document.activeElement?.textContent')) === 'Tokens';
    }
    expect(reached).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => heading().textContent()).toBe('Tokens');
  });

  it('creates a token in the page and shows its secret once; the openai SDK calls with it', async () => {
    await page.goto(`${t.h.url}/console#/tokens`);
    await page.getByLabel('Name', { exact: true }).fill('e2e-console');
    await page.getByRole('button', { name: 'Create token' }).click();
    const shown = page.locator('#new-secret');
    await expect.poll(() => shown.textContent()).toMatch(/^tw-/);
    secret = (await shown.textContent())!.trim();
    const row = page.locator('tr', { hasText: 'e2e-console' });
    tokenId = (await row.getAttribute('data-token-id'))!;
    expect(tokenId).toMatch(/^tok_/);
    // No hash or other secret in what the page received about tokens.
    const listed = await page.evaluate<string>("fetch('/admin/tokens').then((r) => r.text())");
    expect(listed).not.toMatch(/secret_hash|"token":/);
    expect(listed).not.toContain(secret);

    const { data, response } = await openaiClient(t.h, secret)
      .chat.completions.create({ model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'hello console' }] })
      .withResponse();
    expect(data.choices[0]?.message.content).toBeTruthy();
    requestId = response.headers.get('x-gateway-request-id')!;
    expect(requestId).toBeTruthy();
  });

  it('finds the call in the request log by its request id and shows its ledger line', async () => {
    await page.goto(`${t.h.url}/console#/logs`);
    await page.getByLabel('Request id').fill(requestId);
    await page.getByRole('button', { name: 'Search' }).click();
    const link = page.getByRole('link', { name: requestId });
    await link.click();
    await expect.poll(() => heading().textContent()).toContain(requestId);
    expect(page.url()).toContain(`#/logs/${requestId}`);
    const ledger = page.locator('#ledger-lines');
    await expect.poll(() => ledger.locator('tbody tr').count()).toBe(1);
    const line = (await ledger.textContent())!;
    expect(line).toContain('qwx3.7-plus');
    expect(line).toMatch(/input_tokens/);
    expect(line).toMatch(/output_tokens/);
    const [entry] = (
      (await (await t.h.admin(`/admin/ledger?request_id=${requestId}`)).json()) as { data: Array<{ amount: number }> }
    ).data;
    expect(entry!.amount).toBeGreaterThan(0);
    expect(await page.locator('main').textContent()).toContain('micro-units');
  });

  it('edits the quota and rotates the secret in the page: the new secret works, the old one is refused', async () => {
    await page.goto(`${t.h.url}/console#/tokens`);
    const row = page.locator(`tr[data-token-id="${tokenId}"]`);
    await row.getByRole('button', { name: 'Edit e2e-console' }).click();
    await page.getByLabel('Quota in units (empty = unlimited)').last().fill('5');
    await page.getByRole('button', { name: 'Save' }).click();
    // The quota, then what it leaves (the token has spent a little).
    await expect.poll(() => row.locator('td').nth(4).textContent()).toMatch(/^5\.00[\d.]+ left$/);
    const stored = (await (await t.h.admin(`/admin/tokens/${tokenId}`)).json()) as { quota: number };
    expect(stored.quota).toBe(5_000_000);

    await row.getByRole('button', { name: 'Rotate e2e-console' }).click();
    const shown = page.locator('#new-secret');
    await expect.poll(async () => (await shown.textContent())?.trim()).not.toBe(secret);
    const old = secret;
    secret = (await shown.textContent())!.trim();
    expect(secret).toMatch(/^tw-/);
    await openaiClient(t.h, secret).models.list();
    const refused = await openaiClient(t.h, old)
      .models.list()
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it('revokes the token in the page; the SDK is then refused', async () => {
    await page.goto(`${t.h.url}/console#/tokens`);
    const row = page.locator(`tr[data-token-id="${tokenId}"]`);
    await row.getByRole('button', { name: 'Revoke e2e-console' }).click();
    await row.getByRole('button', { name: 'Confirm revoking e2e-console' }).click();
    await expect.poll(() => row.locator('.pill').textContent()).toBe('revoked');
    const refused = await openaiClient(t.h, secret)
      .chat.completions.create({ model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'after revoke' }] })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    // The audit line names the console session.
    const audit = (await (await t.h.admin('/admin/audit?limit=10')).json()) as {
      data: Array<{ actor: string; action: string; target: string }>;
    };
    expect(audit.data.find((a) => a.action === 'token.revoke' && a.target === tokenId)?.actor).toMatch(/^console:/);
  });

  it('the overview charts the traffic (screenshot for the README)', async () => {
    // Some traffic from two tokens, a few of it refused, so the charts and tables have something to show.
    const a = await t.h.token({ name: 'web-app' });
    const b = await t.h.token({ name: 'batch-jobs' });
    for (let i = 0; i < 12; i++) {
      const tok = i % 3 === 0 ? b.secret : a.secret;
      await t.h.fetch('/v1/chat/completions', {
        method: 'POST',
        token: tok,
        json: {
          model: i % 4 === 0 ? 'no-such-model' : 'qwx3.7-plus',
          messages: [{ role: 'user', content: `hi ${i}` }],
        },
      });
    }
    await page.goto(`${t.h.url}/console#/overview`);
    await page.getByRole('button', { name: 'Last hour' }).click();
    await expect.poll(() => page.locator('.chart canvas').count(), SLOW).toBe(2);
    // The hour's figures, not the default day's still on screen: one-minute buckets.
    await expect
      .poll(() => page.locator('.chart[aria-label^="Requests and errors per 1 minutes, last hour"]').count(), SLOW)
      .toBe(1);
    await expect.poll(() => page.locator('table', { hasText: 'Top tokens' }).textContent(), SLOW).toContain('web-app');
    // Upstream health beside it: the channel that served the calls, its breaker and recent traffic; open tasks.
    const channels = page.locator('table', { hasText: 'Channels, last 5 minutes' });
    await expect.poll(() => channels.locator('tr', { hasText: 'sim-dashscope' }).textContent(), SLOW).toMatch(/closed/);
    await expect.poll(() => page.locator('table', { hasText: 'Open tasks' }).textContent()).toContain('in_progress');
    const requests = Number(
      (await page.locator('.stat', { hasText: 'Requests' }).locator('strong').textContent())!.replace(/,/g, ''),
    );
    expect(requests).toBeGreaterThanOrEqual(13);
    await page.screenshot({
      path: join(import.meta.dirname, '..', '..', 'docs', 'console-overview.png'),
      fullPage: true,
    });
  });

  it('a video task shows in the task list with its state and, once finished, its charge', async () => {
    const tok = await t.h.token({ name: 'video-maker' });
    const created = await createVideo(t.h, tok.secret, {
      model: 'hhx-1.1-t2v',
      prompt: 'a lighthouse at dusk',
      seconds: 3,
    });
    expect(created.status).toBe(200);
    const id = String(created.json.id);
    await waitTerminal(t.h, tok.secret, id);
    await page.goto(`${t.h.url}/console#/tasks`);
    await page.getByLabel('State').selectOption('succeeded');
    const row = page.locator('tr', { hasText: id });
    await expect.poll(() => row.locator('.pill').textContent()).toBe('succeeded');
    const [charge] = (
      (await (await t.h.admin(`/admin/ledger?task_id=${id}`)).json()) as { data: Array<{ amount: number }> }
    ).data;
    expect(charge!.amount).toBeGreaterThan(0);
    await expect.poll(async () => (await row.locator('td').nth(6).textContent())?.trim()).not.toBe('…');
    expect(Number((await row.locator('td').nth(6).textContent())!.replace(/,/g, '')) * 1_000_000).toBeCloseTo(
      charge!.amount,
      0,
    );
    // The finished video plays in the page, streamed through the gateway with the console's session.
    await row.getByRole('button', { name: `Play the video of task ${id}` }).click();
    const video = page.locator(`video[aria-label="Video of task ${id}"]`);
    await expect.poll(() => video.evaluate((v) => (v as unknown as VideoElement).readyState)).toBeGreaterThanOrEqual(1);
    expect(
      await video.evaluate((el) => {
        const v = el as unknown as VideoElement;
        return { error: v.error?.code ?? null, playable: v.duration > 0, src: new URL(v.currentSrc).pathname };
      }),
    ).toEqual({ error: null, playable: true, src: `/admin/tasks/${id}/content` });
  });

  it('channels show masked keys and breaker state; a test call reports its outcome', async () => {
    await page.goto(`${t.h.url}/console#/channels`);
    const row = page.locator('tr', { hasText: 'sim-dashscope' });
    await expect.poll(() => row.textContent()).toContain('breaker closed');
    expect(await row.textContent()).toMatch(/api_key: \*\*\*\*/);
    // No upstream key reaches the page.
    expect(await page.content()).not.toContain(DEFAULT_SIM_KEYS.dashscopeApiKey);
    await row.getByRole('button', { name: 'Test sim-dashscope' }).click();
    await expect.poll(() => row.getByRole('status').textContent()).toMatch(/test: ok in \d+ ms/);
  });

  it('every page fits a 390 px wide screen without horizontal scrolling', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const p of ['overview', 'tokens', 'logs', `logs/${requestId}`, 'tasks', 'channels', 'bills']) {
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
