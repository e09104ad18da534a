// Writes alerts to the outbox: an event gets one delivery row per enabled webhook that wants its type, in one
// transaction with the mark that makes it happen once (alert_marks: its primary key decides between instances).
// Nothing is sent here; the dispatcher (dispatcher.ts) delivers.
import type { Kysely } from 'kysely';
import { newId } from '../auth/token-secret.ts';
import type { Database } from '../store/schema.ts';
import { isUniqueViolation } from '../store/store-errors.ts';
import type { WebhooksRepo } from '../store/repos/webhooks.ts';
import { eventBody, SPEND_THRESHOLDS, type AlertEvent, type AlertEventType } from './events.ts';

/** Who spends: a client token, or (with customer accounts) an account. */
export type HolderKind = 'token' | 'account';
/** What is spent against: the lifetime quota, or a budget that resets each period. */
export type LimitKind = 'quota' | 'budget';

/**
 * The seam every spending limit reports through: its holder's spending now, against its limit in a period. The
 * thresholds (50/80/100 %) passed and not yet announced for this (holder, limit, period) are announced, each once
 * across instances. `periodKey` names the period: for a budget its start (`2026-11`), for a quota the quota's
 * amount (a top-up starts a new one).
 */
export interface SpendLevel {
  holderKind: HolderKind;
  holderId: string;
  limitKind: LimitKind;
  periodKey: string;
  spent: number;
  limit: number;
}

/** A breaker left "open" by an instance that stopped before it closed does not silence a new opening forever. */
const BREAKER_OPEN_FORGOTTEN_MS = 15 * 60_000;

export class AlertEmitter {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly webhooks: Pick<WebhooksRepo, 'enabled'>,
  ) {}

  /** Write the event's deliveries (inside `trx` when given). With `markKey`, only if no event took that mark before. */
  async emit(
    type: AlertEventType,
    data: Record<string, unknown>,
    opts: { markKey?: string; within?: Kysely<Database>; at?: number } = {},
  ): Promise<boolean> {
    const at = opts.at ?? Date.now();
    const run = (trx: Kysely<Database>) => this.write(trx, { id: newId('evt'), type, at, data }, opts.markKey);
    if (opts.within) return run(opts.within);
    return this.db.transaction().execute(run);
  }

  private async write(trx: Kysely<Database>, e: AlertEvent, markKey: string | undefined): Promise<boolean> {
    if (markKey !== undefined) {
      const r = await trx
        .insertInto('alert_marks')
        .values({ key: markKey, state: null, at: e.at })
        .onConflict((oc) => oc.column('key').doNothing())
        .executeTakeFirst();
      if (Number(r.numInsertedOrUpdatedRows ?? 0n) === 0) return false;
    }
    await this.fanOut(trx, e);
    return true;
  }

  private async fanOut(trx: Kysely<Database>, e: AlertEvent): Promise<void> {
    const wanting = (await this.webhooks.enabled(trx)).filter((w) => w.events.includes(e.type));
    if (wanting.length === 0) return;
    const payload = eventBody(e);
    await trx
      .insertInto('webhook_deliveries')
      .values(
        wanting.map((w) => ({
          id: newId('msg'),
          webhook_id: w.id,
          event_id: e.id,
          event_type: e.type,
          payload,
          state: 'pending',
          attempts: 0,
          next_at: e.at,
          last_status: null,
          last_error: null,
          created_at: e.at,
          updated_at: e.at,
          delivered_at: null,
        })),
      )
      .execute();
  }

  /** Announce the thresholds `level` has passed, each once per (holder, limit, period) across instances. */
  async spendCrossed(level: SpendLevel): Promise<number[]> {
    if (level.limit <= 0) return [];
    const percent = (level.spent * 100) / level.limit;
    const announced: number[] = [];
    for (const threshold of SPEND_THRESHOLDS) {
      if (percent < threshold) break;
      const key = `spend:${level.holderKind}:${level.holderId}:${level.limitKind}:${level.periodKey}:${threshold}`;
      const data = {
        holder: { kind: level.holderKind, id: level.holderId },
        limit: { kind: level.limitKind, period: level.periodKey, amount: level.limit },
        threshold,
        spent: level.spent,
        percent: Math.floor(percent),
      };
      if (await this.emit('spend.threshold', data, { markKey: key })) announced.push(threshold);
    }
    return announced;
  }

  /**
   * A breaker of this instance opened or closed. The channel's last announced state is kept in its mark and moved
   * by compare-and-set: the first instance to see a transition announces it, the others' same transition is
   * silent (each instance keeps its own breakers, and in an outage they all open).
   */
  async breakerChanged(
    channel: { id: string; name: string | null },
    to: 'opened' | 'closed',
    at = Date.now(),
  ): Promise<boolean> {
    const key = `breaker:${channel.id}`;
    const state = to === 'opened' ? 'open' : 'closed';
    return this.db.transaction().execute(async (trx) => {
      const mark = await trx
        .selectFrom('alert_marks')
        .select(['state', 'at'])
        .where('key', '=', key)
        .executeTakeFirst();
      const known = mark?.state ?? 'closed';
      const stale = known === 'open' && Number(mark?.at) < at - BREAKER_OPEN_FORGOTTEN_MS;
      if (known === state && !stale) return false;
      if (!mark) {
        try {
          const r = await trx
            .insertInto('alert_marks')
            .values({ key, state, at })
            .onConflict((oc) => oc.column('key').doNothing())
            .executeTakeFirst();
          if (Number(r.numInsertedOrUpdatedRows ?? 0n) === 0) return false;
        } catch (e) {
          if (isUniqueViolation(e)) return false;
          throw e;
        }
      } else {
        const r = await trx
          .updateTable('alert_marks')
          .set({ state, at })
          .where('key', '=', key)
          .where('state', '=', known)
          .where('at', '=', Number(mark.at))
          .executeTakeFirst();
        if (Number(r.numUpdatedRows) === 0) return false;
      }
      await this.fanOut(trx, {
        id: newId('evt'),
        type: to === 'opened' ? 'breaker.opened' : 'breaker.closed',
        at,
        data: { channel: { id: channel.id, name: channel.name } },
      });
      return true;
    });
  }
}
