// A name stored with a bidirectional override (U+202E) before the API refused them cannot reorder the console's
// text: in a real browser, the account, token and channel names are shown each in its own isolate (<bdi>) with
// the controls dropped, and the text after them (the id, the other cells) reads as stored.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, useBrowser } from '../support/browser.ts';
import { useHarness } from '../support/harness.ts';

const t = useHarness();
const browser = useBrowser('console bidi names e2e');
let page: Page;
beforeAll(() => void (HAVE_CHROMIUM && (page = browser.page)));

const RLO = '\u202E';
const heading = () => page.locator('main h1').first();
const nav = (name: string) =>
  page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name, exact: true });

describe.skipIf(!HAVE_CHROMIUM)('console: names with bidirectional controls', { timeout: 120_000 }, () => {
  it('are shown isolated, without the controls, on the accounts, tokens and channels pages', async () => {
    const acct = (await (await t.h.admin('/admin/accounts', { method: 'POST', json: { name: 'acme' } })).json()) as {
      id: string;
    };
    const tok = (await (
      await t.h.admin('/admin/tokens', { method: 'POST', json: { name: 'app', account_id: acct.id } })
    ).json()) as { id: string };
    const ch = t.h.gw.deps.channels.all()[0]!;
    // Written as an older build would have stored them.
    await t.h.store.db
      .updateTable('accounts')
      .set({ name: `acme${RLO}fdp.exe` })
      .where('id', '=', acct.id)
      .execute();
    await t.h.store.db
      .updateTable('tokens')
      .set({ name: `app${RLO}fdp.exe` })
      .where('id', '=', tok.id)
      .execute();
    await t.h.store.db
      .updateTable('channels')
      .set({ name: `main${RLO}fdp.exe` })
      .where('id', '=', ch.id)
      .execute();
    await t.h.gw.deps.channels.reload();

    await page.goto(`${t.h.url}/console`);
    await page.getByLabel('Admin key').fill(t.h.adminKey);
    await page.keyboard.press('Enter');
    await expect.poll(() => heading().textContent()).toBe('Overview');

    for (const [link, row, name] of [
      ['Accounts', `#accounts tr[data-account-id="${acct.id}"]`, 'acmefdp.exe'],
      ['Tokens', `tr[data-token-id="${tok.id}"]`, 'appfdp.exe'],
      ['Channels', `tr:has-text("mainfdp.exe")`, 'mainfdp.exe'],
    ] as const) {
      await nav(link).click();
      await expect.poll(() => heading().textContent()).toBe(link);
      const r = page.locator(row).first();
      await expect.poll(() => r.locator('bdi.user-name').first().textContent()).toBe(name);
      expect(await r.textContent()).not.toContain(RLO);
      const style = (e: unknown) =>
        (globalThis as unknown as { getComputedStyle(el: unknown): { unicodeBidi: string } }).getComputedStyle(e)
          .unicodeBidi;
      expect(await r.locator('bdi.user-name').first().evaluate(style)).toBe('isolate');
    }
    expect(browser.errors).toEqual([]);
  });
});
