// Cursor paging for a server-side list: the stack of cursors of the pages seen, newest page first.
import { useState } from 'preact/hooks';

export interface Paging {
  /** The cursor of the page to show (undefined: the first). */
  cursor: string | undefined;
  /** Which page this is, from 1. */
  page: number;
  back: () => void;
  next: (cursor: string | undefined) => void;
  reset: () => void;
}

export function usePaging(): Paging {
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  return {
    cursor: cursors[cursors.length - 1],
    page: cursors.length,
    back: () => setCursors(cursors.slice(0, -1)),
    next: (cursor) => setCursors([...cursors, cursor]),
    reset: () => setCursors([undefined]),
  };
}

/** `labels`: the buttons' words, back and on (a list oldest first: "Previous", "Next"). */
export function Pager({
  paging,
  hasMore,
  nextCursor,
  labels = ['Newer', 'Older'],
}: {
  paging: Paging;
  hasMore: boolean;
  nextCursor: string | undefined;
  labels?: [string, string];
}) {
  return (
    <div class="actions pager">
      <button type="button" class="quiet" disabled={paging.page <= 1} onClick={paging.back}>
        {labels[0]}
      </button>
      <button type="button" class="quiet" disabled={!hasMore} onClick={() => paging.next(nextCursor)}>
        {labels[1]}
      </button>
    </div>
  );
}
