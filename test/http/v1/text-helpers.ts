import type { Harness } from '../../helpers/harness.ts';

export interface LedgerRow {
  idempotency_key: string;
  token_id: string;
  model: string;
  amount: number | string;
  quantities: string;
  request_id: string | null;
  upstream_request_id: string | null;
}

/** Ledger rows for a request, after queued (group-committed) writes are flushed. */
export async function ledgerRows(h: Harness, requestId: string, wantAtLeast = 1): Promise<LedgerRow[]> {
  let rows: LedgerRow[] = [];
  for (let i = 0; i < 100; i++) {
    await h.gw.deps.meter.flush();
    rows = (await h.store.db.selectFrom('ledger').selectAll().where('request_id', '=', requestId).execute()) as unknown as LedgerRow[];
    if (rows.length >= wantAtLeast) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return rows;
}

export interface ParsedEvent {
  event: string | null;
  data: string;
}

/** Split an SSE body into events (tests read whole bodies). */
export function sseEvents(text: string): ParsedEvent[] {
  return text
    .split(/\n\n/)
    .filter((b) => b.trim() !== '')
    .map((block) => {
      let event: string | null = null;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      return { event, data: data.join('\n') };
    });
}
