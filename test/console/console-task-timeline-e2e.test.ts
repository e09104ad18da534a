// A task's timeline in the operator console, in a real browser (Debian's chromium driven by playwright-core): a video
// made through the openai SDK is opened from the Tasks page while it runs, and its page grows by itself to the end —
// created, submitted, the upstream's status changes, succeeded, the charge naming its ledger line — and plays; a
// failing video shows its failure and the hold released, with nothing charged. Both fit a 390 px wide phone screen.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, useBrowser } from '../support/browser.ts';
import { useHarness } from '../support/harness.ts';
import { openaiClient } from '../support/sdk.ts';
import { FAST_TASK_ENV, waitTerminal } from '../support/videos.ts';

/** What the test reads of a <video> (the test's TypeScript has no DOM types). */
type VideoElement = { readyState: number; duration: number; error: { code: number } | null; currentSrc: string };

// Tasks that run for a few seconds, so the page is opened while the task is still open.
const t = useHarness({ env: FAST_TASK_ENV, sim: { taskDurationMs: 5000 } });

const browser = useBrowser('console task timeline e2e');
let page: Page;
beforeAll(() => void (HAVE_CHROMIUM && (page = browser.page)));
const errors = browser.errors;

const heading = () => page.locator('main h1').first();
const rows = () => page.locator('#task-timeline > li');
const kinds = () =>
  rows().evaluateAll((els) => els.map((el) => (el as unknown as { dataset: { kind: string } }).dataset.kind));
/** One event's parts: time, event, from → to, detail, amount. */
const cells = async (kind: string) =>
  (await page.locator(`#task-timeline > li[data-kind="${kind}"]`).first().locator(':scope > *').allTextContents()).map(
    (s) => s.trim(),
  );
const units = (micro: number) => (micro / 1_000_000).toFixed(2);

async function fitsPhone(): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForLoadState('networkidle');
  expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
  await page.setViewportSize({ width: 1280, height: 860 });
}

describe.skipIf(!HAVE_CHROMIUM)('task timeline in the console (chromium)', () => {
  let secret = '';

  it('signs in', async () => {
    secret = (await t.h.token({ name: 'timeline-e2e' })).secret;
    await page.goto(`${t.h.url}/console`);
    await page.getByLabel('Admin key').fill(t.h.adminKey);
    await page.keyboard.press('Enter');
    await expect.poll(() => heading().textContent()).toBe('Overview');
  });

  it('a video opened from the Tasks page while it runs: the timeline grows to succeeded and its charge, and the video plays', async () => {
    const video = await openaiClient(t.h, secret).videos.create({
      model: 'wnx2.7-t2v',
      prompt: 'a harbour at dawn',
      seconds: '4',
      size: '1280x720',
    } as never);
    const id = video.id;
    await page.goto(`${t.h.url}/console#/tasks`);
    const link = page.getByRole('link', { name: `Task ${id}: timeline and charge` });
    await link.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => heading().textContent()).toContain(id);
    expect(page.url()).toContain(`#/tasks/${id}`);
    // Open still: created and submitted so far, nothing charged.
    await expect.poll(async () => (await kinds()).slice(0, 2)).toEqual(['created', 'submitted']);
    expect(['queued', 'in_progress']).toContain((await page.locator('main .pill').first().textContent())?.trim());
    expect(await kinds()).not.toContain('charged');
    expect((await page.locator('#task-charged').textContent())?.trim()).toBe('0.00');
    expect((await cells('submitted'))[2]).toBe('submitting → queued');

    expect((await waitTerminal(t.h, secret, id)).status).toBe('completed');
    // The page reloads an open task by itself: no navigation here.
    await expect.poll(kinds).toContain('charged');
    const seen = await kinds();
    expect(seen.slice(-2)).toEqual(['succeeded', 'charged']);
    expect(new Set(seen.slice(2, -2))).toEqual(new Set(seen.length > 4 ? ['status'] : []));
    const api = (await (await t.h.admin(`/admin/tasks/${id}`)).json()) as {
      events: Array<{ kind: string }>;
      ledger: Array<{ id: number; amount: number }>;
      charged: number;
    };
    expect(api.events.map((e) => e.kind)).toEqual(seen);
    // A list to assistive technology: one item per event.
    expect(
      await page
        .getByRole('list')
        .filter({ has: page.locator('li[data-kind="charged"]') })
        .getByRole('listitem')
        .count(),
    ).toBe(seen.length);
    expect(api.ledger).toHaveLength(1);
    const line = api.ledger[0]!;
    expect((await cells('succeeded'))[2]).toMatch(/ → succeeded$/);
    expect((await cells('succeeded'))[3]).toMatch(/→ SUCCEEDED$/);
    expect((await cells('charged'))[4]).toBe(`${units(line.amount)} (ledger line ${line.id})`);
    expect((await page.locator('#task-charged').textContent())?.trim()).toBe(units(line.amount));
    expect(await page.locator('#task-ledger tbody tr').count()).toBe(1);

    await page.getByRole('button', { name: `Play the video of task ${id}` }).click();
    const player = page.locator(`video[aria-label="Video of task ${id}"]`);
    await expect
      .poll(() => player.evaluate((v) => (v as unknown as VideoElement).readyState))
      .toBeGreaterThanOrEqual(1);
    expect(
      await player.evaluate((el) => {
        const v = el as unknown as VideoElement;
        return { error: v.error?.code ?? null, playable: v.duration > 0, src: new URL(v.currentSrc).pathname };
      }),
    ).toEqual({ error: null, playable: true, src: `/admin/tasks/${id}/content` });
    await fitsPhone();
  });

  it('a failing video: failed with its error and the hold released; nothing charged, nothing to play', async () => {
    const video = await openaiClient(t.h, secret).videos.create({
      model: 'wnx2.7-t2v',
      prompt: 'sim-fault:fail-task',
      seconds: '4',
      size: '1280x720',
    } as never);
    expect((await waitTerminal(t.h, secret, video.id)).status).toBe('failed');
    await page.goto(`${t.h.url}/console#/tasks/${video.id}`);
    await expect.poll(kinds).toContain('hold_released');
    const seen = await kinds();
    expect(seen.slice(-2)).toEqual(['failed', 'hold_released']);
    expect(seen).not.toContain('charged');
    expect((await cells('failed'))[2]).toMatch(/ → failed$/);
    const held = (await (await t.h.admin(`/admin/tasks/${video.id}`)).json()) as { hold_amount: number };
    expect((await cells('hold_released'))[4]).toBe(units(held.hold_amount));
    expect((await page.locator('#task-charged').textContent())?.trim()).toBe('0.00');
    expect(await page.getByRole('button', { name: `Play the video of task ${video.id}` }).count()).toBe(0);
    await fitsPhone();
    expect(errors).toEqual([]);
  });
});
