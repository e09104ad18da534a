// Writes alerts to the outbox: an event gets one delivery row per enabled webhook that wants its type, in one
// transaction with the mark that makes it happen once (alert_marks: its primary key decides between instances).
// Nothing is sent here; the dispatcher (dispatcher.ts) delivers.
import type { Kysely } from 'kysely';
import { newId } from '../auth/token-secret.ts';
import type { Database } from '../store/schema.ts';
import { isUniqueViolation } from '../store/store-errors.ts';
import type { WebhooksRepo } from '../store/repos/webhooks.ts';
import { eventBody, SPEND_THRESHOLDS, type AlertEvent, type AlertEventType, type SpendLevel } from './events.ts';
import type { LimitRefused } from '../metering/refusal.ts';
import { holderName, limitReachedData, thresholdData } from './spend-payloads.ts';

export type { HolderKind, LimitKind, SpendLevel } from './events.ts';

/** A breaker left "open" by an instance that stopped before it closed does not silence a new opening forever. */
const BREAKER_OPEN_FORGOTTEN_MS = 15 * 60_000;

/** The limit-reached keys an instance remembers before it forgets them all (the marks in the store still hold). */
const ANNOUNCED_MAX = 10_000;

export class AlertEmitter {
  /** Limit-reached keys this instance announced or saw announced. */
  private readonly announced = new Set<string>();

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
    if (markKey !== undefined && !(await this.mark(trx, markKey, e.at))) return false;
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

  /**
   * Announce the highest threshold `level` has passed, once per (holder, limit, period) across instances. The lower
   * ones it passed at the same time (the spend jumped past them between two checks) are marked without an event:
   * each event tells a threshold the spend has just crossed, never two in the same check.
   */
  async spendCrossed(level: SpendLevel): Promise<number[]> {
    if (level.limit <= 0) return [];
    const percent = (level.spent * 100) / level.limit;
    const passed = SPEND_THRESHOLDS.filter((t) => percent >= t);
    const highest = passed.at(-1);
    if (highest === undefined) return [];
    const key = (t: number) => `spend:${level.holderKind}:${level.holderId}:${level.limitKind}:${level.periodKey}:${t}`;
    const name = await holderName(this.db, level.holderKind, level.holderId);
    const data = thresholdData(level, highest, name);
    return this.db.transaction().execute(async (trx) => {
      for (const t of passed) if (t !== highest) await this.mark(trx, key(t), Date.now());
      return (await this.emit('spend.threshold', data, { markKey: key(highest), within: trx })) ? [highest] : [];
    });
  }

  /**
   * A hold was refused by a limit (metering/refusal.ts): announced once per (holder, limit, period) across
   * instances; a quota's period is its amount (a top-up starts a new one). This instance remembers what it
   * announced, so a refused call costs no store write once the limit was announced.
   */
  async limitReached(r: LimitRefused, at = Date.now()): Promise<boolean> {
    const period = r.limitKind === 'budget' ? `${r.period}:${r.periodStart}` : String(r.limit);
    const key = `limit:${r.holderKind}:${r.holderId}:${r.limitKind}:${period}`;
    if (this.announced.has(key)) return false;
    if (this.announced.size >= ANNOUNCED_MAX) this.announced.clear();
    this.announced.add(key);
    try {
      const data = limitReachedData(r, await holderName(this.db, r.holderKind, r.holderId));
      return await this.emit('limit.reached', data, { markKey: key, at });
    } catch (e) {
      this.announced.delete(key);
      throw e;
    }
  }

  /** Take a mark without an event (false when it was taken before). */
  private async mark(trx: Kysely<Database>, key: string, at: number): Promise<boolean> {
    const r = await trx
      .insertInto('alert_marks')
      .values({ key, state: null, at })
      .onConflict((oc) => oc.column('key').doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
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
