// The payment provider's events as received (migration 050), with their outcome, for the console. A delivery of an
// event id seen before counts on the same row; an event whose signature did not verify has no trusted id and gets a
// row of its own.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database } from '../schema.ts';
import type { PaymentEventsTable } from '../schema-credit.ts';

export interface PaymentEventRecord {
  id: string;
  provider: string;
  eventId: string | null;
  type: string | null;
  accountId: string | null;
  amountMinor: number | null;
  currency: string | null;
  /** Micro-units credited, or that the event would have credited. */
  amount: number | null;
  outcome: string;
  detail: string | null;
  deliveries: number;
  createdAt: number;
  updatedAt: number;
}

export type PaymentEventInput = Omit<PaymentEventRecord, 'deliveries' | 'createdAt' | 'updatedAt'>;

const num = (v: number | string | bigint | null): number | null => (v === null ? null : Number(v));

const toEvent = (r: Selectable<PaymentEventsTable>): PaymentEventRecord => ({
  id: r.id,
  provider: r.provider,
  eventId: r.event_id ?? null,
  type: r.type ?? null,
  accountId: r.account_id ?? null,
  amountMinor: num(r.amount_minor),
  currency: r.currency ?? null,
  amount: num(r.amount),
  outcome: r.outcome,
  detail: r.detail ?? null,
  deliveries: Number(r.deliveries),
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

export class PaymentEventsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Record a delivery: a new row, or for an event id seen before one more delivery on its row, its outcome replaced
   * unless it was `credited` (a credit is final: later deliveries of the event credit nothing).
   */
  async record(e: PaymentEventInput, now = Date.now()): Promise<PaymentEventRecord> {
    const row = {
      id: e.id,
      provider: e.provider,
      event_id: e.eventId,
      type: e.type,
      account_id: e.accountId,
      amount_minor: e.amountMinor,
      currency: e.currency,
      amount: e.amount,
      outcome: e.outcome,
      detail: e.detail,
      created_at: now,
      updated_at: now,
    };
    if (e.eventId === null) {
      await this.db.insertInto('payment_events').values(row).execute();
      return { ...e, deliveries: 1, createdAt: now, updatedAt: now };
    }
    const kept = <T>(col: 'outcome' | 'detail' | 'amount') =>
      sql<T>`case when payment_events.outcome = 'credited' then payment_events.${sql.ref(col)} else excluded.${sql.ref(col)} end`;
    await this.db
      .insertInto('payment_events')
      .values(row)
      .onConflict((oc) =>
        oc.column('event_id').doUpdateSet({
          deliveries: sql`payment_events.deliveries + 1`,
          updated_at: now,
          outcome: kept<string>('outcome'),
          detail: kept<string | null>('detail'),
          amount: kept<number | null>('amount'),
        }),
      )
      .execute();
    const r = await this.db
      .selectFrom('payment_events')
      .selectAll()
      .where('event_id', '=', e.eventId)
      .executeTakeFirstOrThrow();
    return toEvent(r);
  }

  /** Newest first; `limit` events after `after` (its created_at and id). */
  async list(limit: number, after?: { at: number; id: string }): Promise<PaymentEventRecord[]> {
    let q = this.db.selectFrom('payment_events').selectAll();
    if (after)
      q = q.where((eb) =>
        eb.or([eb('created_at', '<', after.at), eb.and([eb('created_at', '=', after.at), eb('id', '<', after.id)])]),
      );
    return (await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute()).map(toEvent);
  }
}
