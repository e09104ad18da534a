// A charge written for less than it was priced at: clamped to MAX_CHARGE (absurd reported usage), or cut to the room
// its balances had left (balance-bound.ts). Each is reported once, as it is made (the operator's audit line), by
// whichever path wrote it — the meter's own transactions, or the SQLite batch writer, in-thread or on its thread.
// A token a charge was cut at has no room left: its calls reserve from then on, so a hold refuses them.
import type { LedgerCut } from '../store/sqlite-batch-writer.ts';
import { boundRow } from './balance-bound.ts';
import type { LedgerRow } from './ledger-row.ts';
import { isClamped } from '../pricing/prices.ts';

export class ChargeCuts {
  /** Tokens a charge was cut at (their balance, or their account's, is at the bound). */
  readonly atBound = new Set<string>();

  constructor(private readonly onClamped: (row: LedgerRow) => void) {}

  /** Every ledger row passes here: a clamped charge is reported once, as it is made. */
  checked(row: LedgerRow): LedgerRow {
    if (isClamped(row.charge)) this.onClamped(row);
    return row;
  }

  /** The row cut to the room its balances have left; a cut is reported like MAX_CHARGE's clamp. */
  bounded(row: LedgerRow, room: number): LedgerRow {
    const b = boundRow(row, room);
    if (b === row) return row;
    this.atBound.add(row.tokenId);
    if (!isClamped(row.charge)) this.onClamped(b);
    return b;
  }

  /** The SQLite batch writer's cuts among `batch` (it writes tuples: it names them by key and amount written). */
  written(batch: readonly LedgerRow[], cuts: readonly LedgerCut[]): void {
    if (cuts.length === 0) return;
    const byKey = new Map(batch.map((r) => [r.key, r]));
    for (const [key, amount] of cuts) {
      const r = byKey.get(key);
      if (r !== undefined) this.bounded(r, amount);
    }
  }
}
