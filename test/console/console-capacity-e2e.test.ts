// The console's Channels page in a real browser (Debian's chromium driven by playwright-core) shows the channels'
// upstream capacity live: the stated limits, the last minute's use, and the calls queued per customer as they wait
// and once they left — without reloading the page; the limits are stated and cleared in the page's form.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, useBrowser } from '../support/browser.ts';
import { useHarness } from '../support/harness.ts';
import type { Harness } from '../support/harness.ts';
import { chat } from '../capacity/support.ts';

async function limitsOf(h: Harness): Promise<unknown> {
  const list = (await (await h.admin('/admin/channels')).json()) as {
    data: Array<{ name: string; model_limits: unknown }>;
  };
  return list.data.find((c) => c.name === 'sim-dashscope')!.model_limits;
}

// A queue wait far longer than the test: the queued calls stay until the test lets them go.
const t = useHarness({ env: { TOLLWAY_QUEUE_WAIT_MS: '600000' } });
const browser = useBrowser('console capacity e2e');
let page: Page;
beforeAll(() => void (HAVE_CHROMIUM && (page = browser.page)));

const SLOW = { timeout: 30_000 };

describe.skipIf(!HAVE_CHROMIUM)('console: upstream capacity on the channels page', { timeout: 120_000 }, () => {
  it('shows the limits, the use and the queue, and follows them live', async () => {
    const { h } = t;
    await page.goto(`${h.url}/console`);
    await page.getByLabel('Admin key').fill(h.adminKey);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('main h1').first().textContent()).toBe('Overview');
    await page.getByRole('link', { name: 'Channels' }).click();
    const capacity = page.getByRole('table', { name: 'Upstream capacity' });
    await expect.poll(() => capacity.locator('caption').textContent(), SLOW).toMatch(/no limit stated/);

    // The limits are stated in the console's form: a bad number is refused in place, then saved and read back.
    await page.getByRole('button', { name: 'Limits of sim-dashscope' }).click();
    const form = page.getByRole('form', { name: 'Upstream limits of sim-dashscope' });
    await form.getByLabel('Requests a minute').fill('1');
    await form.getByLabel('At once').fill('four');
    await form.getByRole('button', { name: 'Save limits' }).click();
    await expect.poll(() => form.getByRole('alert').textContent()).toMatch(/at once must be a positive whole number/);
    await form.getByLabel('At once').fill('4');
    await form.getByRole('button', { name: 'Save limits' }).click();
    await expect.poll(() => form.count(), SLOW).toBe(0);
    expect(await limitsOf(h)).toEqual({ '*': { rpm: 1, concurrency: 4 } });
    const a = await h.token({ name: 'a' });
    const b = await h.token({ name: 'b' });
    expect((await chat(h, a.secret)).status).toBe(200);
    const gone = new AbortController();
    const queued = [chat(h, a.secret, gone.signal), chat(h, b.secret, gone.signal), chat(h, b.secret, gone.signal)].map(
      (p) => p.catch(() => null),
    );
    const row = capacity.locator('tbody tr', { hasText: 'qwen3.7-plus' });
    await expect.poll(() => row.textContent(), SLOW).toContain('3 waiting');
    const text = (await row.textContent())!;
    expect(text).toContain('sim-dashscope');
    expect(text).toContain('1 rpm (stated)');
    expect(text).toContain('4 at once (stated)');
    expect(text).toContain('1 requests');
    expect(text).toContain(`token:${a.id} 1`);
    expect(text).toContain(`token:${b.id} 2`);

    gone.abort();
    await Promise.all(queued);
    await expect.poll(() => row.locator('td').last().textContent(), SLOW).toBe('none');
    // Cleared in the form: no row left is no limit stated.
    await page.getByRole('button', { name: 'Limits of sim-dashscope' }).click();
    await form.getByRole('button', { name: 'Remove row' }).click();
    await form.getByRole('button', { name: 'Save limits' }).click();
    await expect.poll(() => limitsOf(h), SLOW).toBeNull();
    expect(browser.errors).toEqual([]);
  });
});
