// Every table of the page readable on a phone: each body cell is labelled (data-label) with its column's header, and
// the table marked data-cards, so that under the phone width styles/table-cards.css shows each row as a card of
// labelled lines instead of columns hidden behind a sideways scroll. Done here once for every table the pages render
// (whatever page or component made it), and again whenever the page changes, before it is painted.

/** Each column's header text, a header spanning several columns repeated for each. */
function columnNames(table: HTMLTableElement): string[] | null {
  const head = table.tHead?.rows[table.tHead.rows.length - 1];
  if (!head) return null;
  const names: string[] = [];
  for (const cell of Array.from(head.cells)) {
    const name = (cell.textContent ?? '').replace(/\s+/g, ' ').trim();
    for (let i = 0; i < cell.colSpan; i++) names.push(name);
  }
  return names;
}

function set(el: Element, name: string, value: string | null): void {
  if (value === null) {
    if (el.hasAttribute(name)) el.removeAttribute(name);
  } else if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}

/** Label one table's body cells; a table without a header row is left as it is (a scroll container holds it). */
export function labelTable(table: HTMLTableElement): void {
  const names = columnNames(table);
  if (!names) return set(table, 'data-cards', null);
  set(table, 'data-cards', '');
  for (const body of Array.from(table.tBodies)) {
    for (const row of Array.from(body.rows)) {
      let col = 0;
      for (const cell of Array.from(row.cells)) {
        // A cell across the whole row (an empty list's message) or under an unnamed column needs no label.
        const whole = cell.colSpan >= names.length;
        set(cell, 'data-label', whole ? null : names[col] || null);
        col += cell.colSpan;
      }
    }
  }
}

/** Label every table under `root` now and after each change of the page (the observer batches a render's changes). */
export function labelTablesWithin(root: HTMLElement): () => void {
  const all = () => {
    for (const t of Array.from(root.querySelectorAll('table'))) labelTable(t);
  };
  // Only structure and text: the labels this writes are attributes, so writing them does not call it again.
  const observer = new MutationObserver(all);
  observer.observe(root, { childList: true, subtree: true, characterData: true });
  all();
  return () => observer.disconnect();
}
