// Ledger writes the meter (meter.ts) makes inside its transactions: one charge, a token's spend, a batch of queued
// charges.
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import { readRooms } from './balances/moves.ts';
import { tokenAlone } from './balances/rows.ts';
import { addSpent } from './holds.ts';
import { landBatch } from './batch-spend.ts';
import { ledgerValues, type LedgerRow } from './ledger-row.ts';

/** Insert one charge; false when its key was already charged (the charge is idempotent by its key). */
export async function insertCharge(trx: Kysely<Database>, row: LedgerRow): Promise<boolean> {
  const r = await trx
    .insertInto('ledger')
    .values(ledgerValues(row))
    .onConflict((oc) => oc.column('idempotency_key').doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/**
 * What a charge cost upstream (its channel's stated cost, pricing/upstream-cost.ts), beside its amount: set in the
 * transaction that wrote the charge (migration 040), so the ledger line and its cost commit together.
 */
export async function recordUpstreamCost(trx: Kysely<Database>, key: string, cost: number): Promise<void> {
  await trx.updateTable('ledger').set({ upstream_cost: cost }).where('idempotency_key', '=', key).execute();
}

/** A charge of a token of no account, without a hold: its spend alone. */
export function addTokenSpent(trx: Kysely<Database>, tokenId: string, amount: number) {
  return addSpent(trx, tokenAlone(tokenId), amount);
}

/**
 * Queued charges in one transaction (through Kysely; SQLite's prepared statements do the same in
 * sqlite-batch-writer.ts): each token's rows in order take the room its balance has left (`bound` cuts a row past it,
 * balance-bound.ts), and only the rows really inserted (RETURNING) move `spent`, set-wise (batch-spend.ts).
 */
export async function writeLedgerBatch(
  db: Kysely<Database>,
  batch: LedgerRow[],
  bound: (r: LedgerRow, room: number) => LedgerRow,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const charges = batch.map((r) => ({ tokenId: r.tokenId, flat: r.allowance?.tuple.rows ?? null }));
    // Busy tokens of one account share its room, as any row two charges land on.
    const rooms = await readRooms(trx, charges);
    const rows = batch.map((r, i) => {
      const c = charges[i]!;
      const b = bound(r, rooms.fit(c.tokenId, c.flat));
      rooms.take(c.tokenId, c.flat, b.charge.amount);
      return b;
    });
    const byKey = new Map(rows.map((r) => [r.key, r]));
    const inserted = await trx
      .insertInto('ledger')
      .values(rows.map(ledgerValues))
      .onConflict((oc) => oc.column('idempotency_key').doNothing())
      .returning(['idempotency_key'])
      .execute();
    await landBatch(
      trx,
      inserted.flatMap(({ idempotency_key }) => byKey.get(idempotency_key) ?? []),
    );
  });
}
