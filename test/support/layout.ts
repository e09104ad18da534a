// What a console page looks like on a screen, measured in the browser: what sticks out of the screen sideways, what
// scrolls sideways, and where the money cells are. The measuring runs in the page (the tests' TypeScript has no DOM
// types, so it is handed over as source).
import type { Page } from 'playwright-core';

/** A column whose header names money: spend, amounts, balances, quotas, prices, costs, credit. */
export const MONEY_HEADER = /spen[dt]|amount|balance|quota|price|cost|credit|charge|total|units/i;

export interface Layout {
  /** Elements wider than the screen or past its edges, not clipped by a container of theirs. */
  outside: string[];
  /** Elements (or the page) with content hidden behind a sideways scroll. */
  scrolling: string[];
  /** Each money cell of each table (its column's header matching MONEY_HEADER): its header and whether it is seen. */
  money: Array<{ header: string; text: string; seen: boolean }>;
}

const MEASURE = `(() => {
  const W = document.documentElement.clientWidth;
  const money = new RegExp(${JSON.stringify(MONEY_HEADER.source)}, 'i');
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
    (el.classList.length ? '.' + [...el.classList].join('.') : '') + ' "' + (el.textContent || '').trim().slice(0, 40) + '"';
  const clips = (el) => getComputedStyle(el).overflowX !== 'visible';
  const clippers = (el) => { const out = []; for (let p = el.parentElement; p; p = p.parentElement) if (clips(p)) out.push(p); return out; };
  const within = (r, box) => r.left >= box.left - 1 && r.right <= box.right + 1;
  const screen = { left: 0, right: W };
  const outside = [];
  const scrolling = [];
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    // Nothing drawn, or off the screen's left edge on purpose (the skip link until it has focus).
    if (r.width === 0 || r.height === 0 || r.right <= 0 || getComputedStyle(el).visibility === 'hidden') continue;
    if (!within(r, screen) && clippers(el).length === 0) outside.push(name(el));
    if (clips(el) && el.scrollWidth > el.clientWidth + 1 && ['auto', 'scroll'].includes(getComputedStyle(el).overflowX))
      scrolling.push(name(el));
  }
  if (document.documentElement.scrollWidth > W) scrolling.push('the page');
  const cells = [];
  for (const table of document.querySelectorAll('main table')) {
    const head = table.tHead && table.tHead.rows[table.tHead.rows.length - 1];
    if (!head) continue;
    const headers = [];
    for (const th of head.cells) for (let i = 0; i < th.colSpan; i++) headers.push((th.textContent || '').trim());
    for (const body of table.tBodies) for (const row of body.rows) {
      let col = 0;
      for (const cell of row.cells) {
        const header = headers[col] || '';
        col += cell.colSpan;
        if (cell.colSpan > 1 || !money.test(header)) continue;
        const r = cell.getBoundingClientRect();
        const seen = r.width > 0 && within(r, screen) && clippers(cell).every((c) => within(r, c.getBoundingClientRect()));
        cells.push({ header, text: (cell.textContent || '').trim(), seen });
      }
    }
  }
  return { outside, scrolling, money: cells };
})()`;

export const measure = (page: Page): Promise<Layout> => page.evaluate<Layout>(MEASURE);

/** The bounding box of `selector`'s first element, and whether it lies inside the window (both ways). */
export async function inWindow(page: Page, selector: string): Promise<boolean> {
  const box = await page.locator(selector).first().boundingBox();
  const size = page.viewportSize();
  if (!box || !size) return false;
  return box.x >= 0 && box.y >= 0 && box.x + box.width <= size.width && box.y + box.height <= size.height;
}
