// The console's price groups, channel forms and reconciliation in a real browser (Debian's chromium driven by
// playwright-core), at 1366 px and at a 390 px phone's width: create a price group and edit it (a multiplier and a
// price per model, in units), add a channel of the kind picked with the key fields that kind declares (the keys never
// shown back), edit it, and read the reconciliation — clean, then what is wrong after a request-log row is lost. At 390
// px the pages' content stays inside the viewport except in a table's scroll container, and each save button is in
// view when clicked.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, useBrowser } from '../support/browser.ts';
import { clickInView, expectFits } from '../support/console-layout.ts';
import { useHarness } from '../support/harness.ts';

const t = useHarness();

const browser = useBrowser('console operator pages e2e');
let page: Page;
beforeAll(() => void (HAVE_CHROMIUM && (page = browser.page)));
const errors = browser.errors;

const heading = () => page.locator('main h1').first();
const SLOW = { timeout: 30_000 };
const IMAGE = 'qwx-image-2.0';

type Group = { name: string; multiplier: number; prices: Record<string, { unit: string; perImage?: number }> };
type Channel = {
  id: string;
  name: string;
  kind: string;
  base_url: string;
  models: string[] | null;
  priority: number;
  weight: number;
  keys: Record<string, string | null>;
};
type AuditLine = { action: string; target: string | null; actor: string };

const json = async <T>(path: string) => (await (await t.h.admin(path)).json()) as T;
const channelNamed = async (name: string) =>
  (await json<{ data: Channel[] }>('/admin/channels')).data.find((c) => c.name === name);
const audited = async (action: string, target: string) =>
  (await json<{ data: AuditLine[] }>('/admin/audit?limit=50')).data.find(
    (a) => a.action === action && a.target === target,
  );

/** Open a console page by its hash, as a link does, and wait for its heading. */
async function open(hash: string, title: string | RegExp) {
  await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
  await expect.poll(() => heading().textContent(), SLOW).toMatch(title);
}

/** Everything the page holds as text, markup and field values: where a key must not be. */
const pageText = async () =>
  (await page.content()) +
  (await page.evaluate<string>(
    "[...document.querySelectorAll('input, select, textarea')].map((e) => e.value).join('\\n')",
  ));

async function chat() {
  const r = await t.h.fetch('/v1/chat/completions', {
    method: 'POST',
    token: t.token,
    json: { model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'reconcile me' }] },
  });
  expect(r.status).toBe(200);
}

describe.skipIf(!HAVE_CHROMIUM)('console price groups, channels and reconciliation in chromium', () => {
  it('signs in; the navigation links to price groups, reconciliation and the audit log', async () => {
    await chat();
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.goto(`${t.h.url}/console`);
    const key = page.getByLabel('Admin key');
    await expect.poll(() => key.isVisible()).toBe(true);
    await key.fill(t.h.adminKey);
    await page.keyboard.press('Enter');
    await expect.poll(() => heading().textContent()).toBe('Overview');
    const nav = page.getByRole('navigation', { name: 'Console pages' });
    for (const [label, title] of [
      ['Audit', 'Audit'],
      ['Reconciliation', 'Reconciliation'],
      ['Price groups', 'Price groups'],
    ] as const) {
      await nav.getByRole('link', { name: label, exact: true }).click();
      await expect.poll(() => heading().textContent()).toMatch(title);
    }
  });

  for (const width of [1366, 390]) {
    const phone = width < 400;
    const fits = (what: string) => (phone ? expectFits(page, `${what} at ${width} px`) : Promise.resolve());
    const group = `gold-${width}`;
    const channel = `kling-${width}`;
    const accessKey = `AKconsole${width}abcdef123456`;
    const secretKey = `SKconsole${width}zyxwvu987654`;
    const newAccessKey = `AKrotated${width}qrstuv4242`;

    describe(`at ${width} px`, () => {
      it('creates a price group', async () => {
        await page.setViewportSize({ width, height: phone ? 844 : 900 });
        await open('#/price-groups', 'Price groups');
        await fits('price groups');
        await page.getByLabel('Name', { exact: true }).fill(group);
        await page.getByLabel(/^Multiplier of list prices/).fill('0.8');
        await clickInView(page, page.getByRole('button', { name: 'Create price group' }));
        await expect.poll(() => heading().textContent(), SLOW).toBe(`Price group ${group}`);
        expect(await json<Group>(`/admin/price-groups/${group}`)).toMatchObject({ multiplier: 0.8, prices: {} });
        await expect.poll(() => page.locator('#group-now').textContent()).toContain('× 0.8');
        // A second creation of the name is refused in the page: it would replace the group.
        await open('#/price-groups', 'Price groups');
        await page.getByLabel('Name', { exact: true }).fill(group);
        await clickInView(page, page.getByRole('button', { name: 'Create price group' }));
        await expect.poll(() => page.locator('#new-price-group [role="alert"]').textContent()).toMatch(/exists/);
      });

      it('edits it: a new multiplier and a price for one model, in units', async () => {
        await open(`#/price-groups/${group}`, `Price group ${group}`);
        await fits('a price group');
        const form = page.locator('#edit-price-group');
        await form.getByLabel(/^Multiplier of list prices/).fill('0.75');
        await form.getByLabel(/^Set a price for a model/).selectOption(IMAGE);
        await clickInView(page, form.getByRole('button', { name: 'Add model price' }));
        const field = form.locator(`fieldset[data-model="${IMAGE}"]`).getByLabel('Per image');
        // It starts from the model's list price.
        expect(await field.inputValue()).toBe('0.2');
        await field.fill('-1');
        await clickInView(page, form.getByRole('button', { name: 'Save price group' }));
        await expect.poll(() => form.locator('[role="alert"]').textContent()).toMatch(/Per image: enter a number/);
        expect((await json<Group>(`/admin/price-groups/${group}`)).multiplier).toBe(0.8);
        await field.fill('0.15');
        await fits('the price group form');
        await clickInView(page, form.getByRole('button', { name: 'Save price group' }));
        await expect.poll(() => page.locator('#group-now').textContent(), SLOW).toContain('× 0.75');
        expect(await page.locator(`#group-now [data-model="${IMAGE}"]`).textContent()).toBe(`${IMAGE}0.15`);
        expect(await json<Group>(`/admin/price-groups/${group}`)).toMatchObject({
          multiplier: 0.75,
          prices: { [IMAGE]: { unit: 'image', perImage: 150_000 } },
        });
        expect((await audited('price_group.update', group))?.actor).toMatch(/^console:csn_/);
        await open('#/price-groups', 'Price groups');
        const row = page.locator(`#price-groups tr[data-group="${group}"]`);
        await expect.poll(() => row.textContent()).toContain('× 0.75');
        expect(await row.textContent()).toContain(`${IMAGE}0.15`);
        await fits('price groups with a group');
      });

      it('adds a channel with the key fields of the kind picked; the keys are never shown back', async () => {
        await open('#/channels', 'Channels');
        await clickInView(page, page.getByRole('button', { name: 'Add a channel' }));
        const form = page.locator('#channel-form');
        await form.getByLabel('Kind', { exact: true }).selectOption('dashscope');
        await expect.poll(() => form.getByLabel('api_key').count()).toBe(1);
        expect(await form.getByLabel('secret_key').count()).toBe(0);
        await form.getByLabel('Kind', { exact: true }).selectOption('kling');
        await expect.poll(() => form.getByLabel('secret_key').count()).toBe(1);
        expect(await form.getByLabel('api_key').count()).toBe(0);
        expect(await form.getByLabel('Base URL').getAttribute('placeholder')).toBe('https://api-beijing.klingai.com');
        await form.getByLabel('Name', { exact: true }).fill(channel);
        await form.getByLabel('access_key').fill(accessKey);
        await form.getByLabel('secret_key').fill(secretKey);
        expect(await form.getByLabel('secret_key').getAttribute('type')).toBe('password');
        await fits('the channel form');
        await clickInView(page, form.getByRole('button', { name: 'Add channel' }));
        await expect.poll(() => page.locator('#channel-form').count(), SLOW).toBe(0);
        await expect.poll(() => page.locator('main table').first().textContent(), SLOW).toContain(channel);
        const made = (await channelNamed(channel))!;
        expect(made).toMatchObject({ kind: 'kling', base_url: 'https://api-beijing.klingai.com', models: null });
        expect(made.keys.access_key).toMatch(/3456$/);
        expect(made.keys.secret_key).toBe('****');
        const text = await pageText();
        expect(text).not.toContain(accessKey);
        expect(text).not.toContain(secretKey);
        await fits('channels');
      });

      it('edits the channel: its numbers and models change, a new key replaces the old one and is not shown', async () => {
        const before = (await channelNamed(channel))!;
        await clickInView(page, page.getByRole('button', { name: `Edit ${channel}` }));
        const form = page.locator('#channel-form');
        await expect.poll(() => form.getByLabel('Name', { exact: true }).inputValue()).toBe(channel);
        // The kind is fixed on an edit: shown, not offered.
        expect(await form.locator('#channel-kind').textContent()).toMatch(/^Kind: kling/);
        expect(await form.locator('select#channel-kind').count()).toBe(0);
        // Keys start empty: nothing stored is sent back to the browser to fill them.
        expect(await form.getByLabel('access_key').inputValue()).toBe('');
        expect(await form.getByLabel('secret_key').inputValue()).toBe('');
        await form.getByLabel('Priority').fill('5');
        await form.getByLabel('Weight').fill('3');
        await form.getByLabel('Models (comma-separated; empty: every model of its kind)').fill('vidx-v3');
        await form.getByLabel('access_key').fill(newAccessKey);
        await fits('the channel edit form');
        await clickInView(page, form.getByRole('button', { name: 'Save channel' }));
        await expect.poll(() => page.locator('#channel-form').count(), SLOW).toBe(0);
        const after = (await channelNamed(channel))!;
        expect(after).toMatchObject({ id: before.id, priority: 5, weight: 3, models: ['vidx-v3'] });
        expect(after.keys.access_key).toMatch(/4242$/);
        expect(after.keys.secret_key).toBe('****');
        expect((await audited('channel.update', before.id))?.actor).toMatch(/^console:csn_/);
        const text = await pageText();
        for (const k of [accessKey, secretKey, newAccessKey]) expect(text).not.toContain(k);
        await expect.poll(() => page.locator('main table').first().textContent()).toContain('vidx-v3');
      });

      it('reconciliation of the last day: clean, with the call priced both ways', async () => {
        await open('#/reconcile', 'Reconciliation');
        const verdict = page.locator('#reconcile-verdict');
        await expect.poll(() => verdict.textContent(), SLOW).toMatch(/^Clean\./);
        await expect.poll(() => page.locator('#reconcile-groups tbody').textContent()).toContain('qwx3.7-plus');
        expect(await page.locator('#reconcile-difference').textContent()).toBe('0.00');
        expect(await page.locator('[data-finding="mismatches"]').textContent()).toMatch(/none/);
        await fits('reconciliation');
        await clickInView(page, page.getByRole('button', { name: 'Last 7 days' }));
        await expect.poll(() => verdict.textContent(), SLOW).toMatch(/^Clean\./);
      });
    });
  }

  it('names what is wrong once a charged call lost its request-log row, at both widths', async () => {
    await t.h.store.db.deleteFrom('request_log').where('token_id', '=', t.tokenId).execute();
    for (const width of [390, 1366]) {
      await page.setViewportSize({ width, height: 900 });
      await open('#/overview', 'Overview');
      await open('#/reconcile', 'Reconciliation');
      const verdict = page.locator('#reconcile-verdict');
      await expect.poll(() => verdict.textContent(), SLOW).toMatch(/^Not clean\./);
      expect(await verdict.textContent()).toContain('Mismatches between a charge and its stored usage: 1');
      const found = page.locator('[data-finding="mismatches"]');
      expect(await found.locator('tbody tr').count()).toBe(1);
      expect(await found.textContent()).toContain('request-log row missing');
      // The period picker: a period before the call is clean again.
      await page.getByLabel('From').fill('2020-01-01T00:00');
      await page.getByLabel('To').fill('2020-01-02T00:00');
      await clickInView(page, page.getByRole('button', { name: 'Reconcile' }));
      await expect.poll(() => verdict.textContent(), SLOW).toMatch(/^Clean\./);
      if (width < 400) await expectFits(page, 'reconciliation at 390 px');
    }
    expect(errors).toEqual([]);
  });
});
