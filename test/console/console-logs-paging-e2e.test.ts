// The request-log page starts over when its filter changes without the Search button (the navigation link from page 2
// of a filtered search, Back/Forward between two searches): the newest rows from page 1, the filter fields as the URL
// says.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, useBrowser } from '../support/browser.ts';
import { useHarness } from '../support/harness.ts';

const t = useHarness();
const browser = useBrowser('console paging');
let page: Page;
beforeAll(() => void (HAVE_CHROMIUM && (page = browser.page)));

const NOW = Date.now();
const row = (i: number, token: string, at: number) => ({
  request_id: `req_stale_${token}_${String(i).padStart(3, '0')}`,
  token_id: token,
  model: 'qwx3.7-plus',
  endpoint: '/v1/chat/completions',
  method: 'POST',
  status: 200,
  latency_ms: 3,
  usage: null,
  amount: 0,
  upstream_request_id: null,
  error_code: null,
  created_at: at,
  channel_id: null,
  attempts: null,
  ttfb_ms: 2,
});

describe.skipIf(!HAVE_CHROMIUM)('console request log paging', () => {
  it('following "Request log" from page 2 of a filtered search shows the newest requests, from page 1', async () => {
    // tok_a: 80 older rows; tok_b: 80 newer rows (the newest of all is req_stale_tok_b_079).
    const a = Array.from({ length: 80 }, (_, i) => row(i, 'tok_a', NOW - 600_000 + i * 1000));
    const b = Array.from({ length: 80 }, (_, i) => row(i, 'tok_b', NOW - 300_000 + i * 1000));
    await t.h.store.db
      .insertInto('request_log')
      .values([...a, ...b])
      .execute();

    await page.goto(`${t.h.url}/console`);
    await page.getByLabel('Admin key').fill(t.h.adminKey);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('main h1').first().textContent()).toBe('Overview');

    await page.evaluate('location.hash = "#/logs?token_id=tok_a"');
    const firstId = () => page.locator('main table tbody tr').first().locator('code').first().textContent();
    await expect.poll(firstId).toBe('req_stale_tok_a_079');
    await page.getByRole('button', { name: 'Older' }).click();
    await expect.poll(firstId).toBe('req_stale_tok_a_029');

    // The operator clicks "Request log" in the navigation bar: all requests, newest first, is what they expect.
    await page.locator('nav a[href="#/logs"]').click();
    await expect.poll(() => page.evaluate('location.hash')).toBe('#/logs');
    await expect.poll(firstId).toBe('req_stale_tok_b_079');
    expect(await page.locator('main table caption').textContent()).not.toMatch(/page 2/);
    expect(await page.getByLabel('Token id').inputValue()).toBe('');
    // Back to the filtered search: its first page again.
    await page.goBack();
    await expect.poll(() => page.evaluate('location.hash')).toBe('#/logs?token_id=tok_a');
    await expect.poll(firstId).toBe('req_stale_tok_a_079');
    expect(await page.getByLabel('Token id').inputValue()).toBe('tok_a');
  });
});
