// Layout checks for the console's end-to-end tests at a phone's width: nothing in the page's main content reaches past
// the viewport's sides except inside a marked scroll container (.table-wrap), and a button is fully in view when it is
// clicked.
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';

/** The elements of <main> (outside a .table-wrap) that reach or spill past the viewport's sides; the page width. */
export async function overflow(page: Page): Promise<{ outside: string[]; scrollWidth: number; width: number }> {
  return page.evaluate(`(() => {
    const width = window.innerWidth;
    const outside = [];
    for (const el of document.querySelectorAll('main *')) {
      if (el.closest('.table-wrap')) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      // A box within the viewport whose content runs past it (a line that does not wrap) overflows as well.
      const spills = !['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName) && el.scrollWidth > el.clientWidth + 1 &&
        getComputedStyle(el).overflowX === 'visible' && r.left + el.scrollWidth > width + 1;
      if (r.left < -1 || r.right > width + 1 || spills)
        outside.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + '.' + el.className + ' ' + Math.round(r.left) + '..' + Math.round(r.right));
    }
    return { outside: outside.slice(0, 10), scrollWidth: document.documentElement.scrollWidth, width };
  })()`);
}

/** Fails when the page's main content overflows the viewport horizontally outside a scroll container. */
export async function expectFits(page: Page, what: string): Promise<void> {
  const o = await overflow(page);
  expect(o.outside, what).toEqual([]);
  expect(o.scrollWidth, what).toBeLessThanOrEqual(o.width);
}

/** Click `button` after scrolling to it, failing when it is not then wholly inside the viewport. */
export async function clickInView(page: Page, button: Locator): Promise<void> {
  await button.scrollIntoViewIfNeeded();
  const box = await button.boundingBox();
  const view = page.viewportSize()!;
  expect(box, 'the button is shown').not.toBeNull();
  // Within a pixel: layout positions are fractional.
  expect(box!.x).toBeGreaterThanOrEqual(-1);
  expect(box!.x + box!.width).toBeLessThanOrEqual(view.width + 1);
  expect(box!.y).toBeGreaterThanOrEqual(-1);
  expect(box!.y + box!.height).toBeLessThanOrEqual(view.height + 1);
  await button.click();
}
