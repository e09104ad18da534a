import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Catalogue } from '../catalogue/catalogue.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { Database } from '../store/schema.ts';
import { isUniqueViolation } from '../store/store.ts';
import { priceUsage } from './prices.ts';
import type { Charge, Meter, SyncChargeInput, TaskRef, Usage } from './types.ts';

/**
 * Store-backed metering. Exactly-once is by construction: every charge is an insert keyed by a
 * unique idempotency key, and the token's spent/held counters move in the same transaction only
 * when that insert (or the hold's compare-and-set) actually happened.
 */
export class StoreMeter implements Meter {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly catalogue: () => Catalogue,
  ) {}

  price(billingModel: string, usage: Usage): Charge {
    const entry = this.catalogue().get(billingModel);
    if (!entry) throw new GatewayError('internal_error', `no price for model ${billingModel}`);
    return priceUsage(entry.price, usage);
  }

  async assertQuota(tokenId: string): Promise<void> {
    const t = await this.db.selectFrom('tokens').select(['quota', 'spent', 'held']).where('id', '=', tokenId).executeTakeFirst();
    if (t && t.quota !== null && Number(t.spent) + Number(t.held) >= Number(t.quota)) {
      throw new GatewayError('insufficient_quota', 'Token quota exhausted');
    }
  }

  private async insertCharge(
    trx: Kysely<Database>,
    key: string,
    row: { tokenId: string; model: string; kind: string; charge: Charge; requestId: string | null; taskId: string | null; upstreamRequestId: string | null },
  ): Promise<boolean> {
    try {
      await trx
        .insertInto('ledger')
        .values({
          idempotency_key: key,
          token_id: row.tokenId,
          model: row.model,
          kind: row.kind,
          quantities: JSON.stringify(row.charge.quantities),
          unit_prices: JSON.stringify(row.charge.unitPrices),
          amount: row.charge.amount,
          request_id: row.requestId,
          task_id: row.taskId,
          upstream_request_id: row.upstreamRequestId,
          created_at: Date.now(),
        })
        .execute();
      return true;
    } catch (e) {
      if (isUniqueViolation(e)) return false;
      throw e;
    }
  }

  async chargeSync(input: SyncChargeInput): Promise<number> {
    const charge = this.price(input.billingModel, input.usage);
    return this.db.transaction().execute(async (trx) => {
      const inserted = await this.insertCharge(trx, input.requestId, {
        tokenId: input.tokenId,
        model: input.model,
        kind: input.usage.kind,
        charge,
        requestId: input.requestId,
        taskId: null,
        upstreamRequestId: input.upstreamRequestId ?? null,
      });
      if (!inserted) return 0;
      await trx.updateTable('tokens').set({ spent: sql`spent + ${charge.amount}` }).where('id', '=', input.tokenId).execute();
      return charge.amount;
    });
  }

  async hold(task: TaskRef, estimate: Usage): Promise<number> {
    const amount = this.price(task.billingModel, estimate).amount;
    return this.db.transaction().execute(async (trx) => {
      // Compare-and-set on the token: the hold only lands if it fits the quota.
      const r = await trx
        .updateTable('tokens')
        .set({ held: sql`held + ${amount}` })
        .where('id', '=', task.tokenId)
        .where((eb) => eb.or([eb('quota', 'is', null), eb(sql`spent + held + ${amount}`, '<=', eb.ref('quota'))]))
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) throw new GatewayError('insufficient_quota', 'Token quota is not enough for this task');
      const now = Date.now();
      await trx.insertInto('holds').values({ task_id: task.taskId, token_id: task.tokenId, amount, state: 'held', created_at: now, updated_at: now }).execute();
      return amount;
    });
  }

  /** Close the hold (held → to); returns the held amount, or null if it was not open. */
  private async closeHold(trx: Kysely<Database>, task: TaskRef, to: 'settled' | 'released'): Promise<number | null> {
    const h = await trx.selectFrom('holds').select(['amount', 'state']).where('task_id', '=', task.taskId).executeTakeFirst();
    if (!h || h.state !== 'held') return null;
    const r = await trx.updateTable('holds').set({ state: to, updated_at: Date.now() }).where('task_id', '=', task.taskId).where('state', '=', 'held').executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) return null;
    await trx.updateTable('tokens').set({ held: sql`held - ${Number(h.amount)}` }).where('id', '=', task.tokenId).execute();
    return Number(h.amount);
  }

  async settle(task: TaskRef, reported: Usage): Promise<number> {
    const charge = this.price(task.billingModel, reported);
    return this.db.transaction().execute(async (trx) => {
      const inserted = await this.insertCharge(trx, `${task.taskId}:success`, {
        tokenId: task.tokenId,
        model: task.model,
        kind: reported.kind,
        charge,
        requestId: task.requestId ?? null,
        taskId: task.taskId,
        upstreamRequestId: task.upstreamRequestId ?? null,
      });
      if (!inserted) return 0;
      await this.closeHold(trx, task, 'settled');
      await trx.updateTable('tokens').set({ spent: sql`spent + ${charge.amount}` }).where('id', '=', task.tokenId).execute();
      return charge.amount;
    });
  }

  async release(task: TaskRef): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await this.closeHold(trx, task, 'released');
    });
  }

  async flush(): Promise<void> {}
}
