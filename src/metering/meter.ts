import type { Kysely } from 'kysely';
import type { Catalogue } from '../catalogue/catalogue.ts';
import type { ModelEntry } from '../catalogue/types.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { Database } from '../store/schema.ts';
import { ALLOWANCE_DEFAULTS, Allowances, type Allowance } from './allowances.ts';
import { billingAllowance, taskChargeRow } from './ledger-row.ts';
import { addTokenSpent, insertCharge } from './ledger-write.ts';
import type { Billing } from './billing.ts';
import { targetRoom } from './balance-bound.ts';
import { closeHold, holdStateOf, holdTarget, placeHold } from './holds.ts';
import { MeterLedger } from './meter-ledger.ts';
import { LimitRefusal, type LimitRefused } from './refusal.ts';
import { reapHolds } from './reaper.ts';
import { groupCharge, type PriceGroups } from '../pricing/price-groups.ts';
import { chargeAt, parseTerms, termsOf } from '../pricing/price-terms.ts';
import { quotaRoom } from './quota-room.ts';
import { isBillable, priceForEntry } from '../pricing/prices.ts';
import type { StoreMeterOptions } from './meter-options.ts';
import { BUDGET_PERIOD_RULES, tokenAlone, type PeriodRule } from './balances/rows.ts';
import type {
  AllowanceHolder,
  Charge,
  Meter,
  OnReaped,
  StoreTransaction,
  SyncChargeInput,
  TaskRef,
  Usage,
} from './types.ts';

export { RESERVATION_PREFIX } from './holds.ts';
export type { StoreMeterOptions } from './meter-options.ts';

/**
 * Store-backed metering. Exactly-once is by construction, on SQLite and PostgreSQL alike:
 * - every charge is `INSERT … ON CONFLICT (idempotency_key) DO NOTHING`, and the token's `spent` moves in the
 *   same transaction only when that insert actually happened;
 * - a task's outcome is decided by one compare-and-set on its `holds` row (`state: held → settled|released`);
 *   only the winner of that CAS touches `held`/`spent`, so settle/settle and settle/release races have one
 *   outcome. A hold CAS on the token (`spent + held + amount <= quota`) makes overspending by parallel
 *   task creations impossible.
 * Its charges reach the ledger through MeterLedger (meter-ledger.ts): queued for group commit, or written here.
 */
export class StoreMeter extends MeterLedger implements Meter {
  private readonly groups: Pick<PriceGroups, 'get'> | null;
  private readonly allowances: Allowances | null;
  private readonly periods: Readonly<Record<string, PeriodRule>>;
  private readonly onRefused: (r: LimitRefused) => void;

  constructor(
    db: Kysely<Database>,
    private readonly catalogue: () => Catalogue,
    opts: StoreMeterOptions = {},
  ) {
    super(db, opts);
    this.groups = opts.priceGroups ?? null;
    this.periods = opts.budgetPeriods ?? BUDGET_PERIOD_RULES;
    this.onRefused = opts.onRefused ?? (() => undefined);
    const allowances = opts.allowances ?? ALLOWANCE_DEFAULTS;
    this.allowances =
      allowances === false
        ? null
        : new Allowances(
            db,
            this.now,
            (t) => this.pending.get(t) ?? 0,
            allowances,
            opts.onAllowanceError,
            this.periods,
          );
  }

  /** A billing model id, or any public name (alias, dated snapshot) that resolves to one. */
  private entryFor(model: string): ModelEntry {
    const cat = this.catalogue();
    const entry = cat.get(model) ?? cat.resolve(model)?.entry;
    if (!entry) throw new GatewayError('internal_error', `metering: no price for model ${model}`);
    return entry;
  }

  price(billingModel: string, usage: Usage, priceGroup?: string | null): Charge {
    const entry = this.entryFor(billingModel);
    // A group unknown here (removed since) charges the list price.
    const group = priceGroup ? this.groups?.get(priceGroup) : undefined;
    return group ? groupCharge(entry, usage, group) : priceForEntry(entry, usage);
  }

  async chargeSync(input: SyncChargeInput): Promise<number> {
    if (!isBillable(input.usage)) return 0;
    const priced = this.syncRow(input, this.price(input.billingModel, input.usage));
    return this.db.transaction().execute(async (trx) => {
      const row = this.cuts.bounded(priced, await targetRoom(trx, tokenAlone(input.tokenId)));
      if (!(await insertCharge(trx, row))) return 0;
      if (row.charge.amount > 0) await addTokenSpent(trx, input.tokenId, row.charge.amount);
      return row.charge.amount;
    });
  }

  chargeSyncDeferred(input: SyncChargeInput): number {
    if (!isBillable(input.usage)) return 0;
    const b = input.billing;
    const charge = this.price(input.billingModel, input.usage, b?.priceGroup);
    const row = b
      ? this.syncRow(input, charge, b.accountId, billingAllowance(input, b, this.now(), this.periods))
      : this.syncRow(input, charge);
    if (this.queuedKeys.has(row.key)) return 0;
    this.queue(row);
    return charge.amount;
  }

  async hold(task: TaskRef, estimate: Usage): Promise<number> {
    const billing = task.billing ?? null;
    // The prices of now, kept with the hold: the task is charged at them whatever changes before it ends.
    const entry = this.entryFor(task.billingModel);
    const terms = termsOf(entry, billing?.priceGroup ? this.groups?.get(billing.priceGroup) : undefined);
    const amount = chargeAt(entry, estimate, terms).amount;
    return this.db.transaction().execute(async (trx) => {
      // A repeated hold for the same task is a no-op: report what is held (0 if the task already ended).
      if (
        await this.placeHold(
          trx,
          task.taskId,
          task.tokenId,
          amount,
          billing,
          'Token quota is not enough for this task',
          JSON.stringify(terms),
        )
      )
        return amount;
      const h = await trx
        .selectFrom('holds')
        .select(['amount', 'state'])
        .where('hold_key', '=', task.taskId)
        .executeTakeFirst();
      return h && h.state === 'held' ? Number(h.amount) : 0;
    });
  }

  /** A hold on the token (queued charges not yet committed count too), its account and budgets: holds.ts. */
  private placeHold(
    trx: Kysely<Database>,
    key: string,
    tokenId: string,
    amount: number,
    billing: Billing | null,
    refusal: string,
    terms?: string,
  ) {
    const spec = { key, tokenId, amount, billing, refusal, periods: this.periods, ...(terms ? { terms } : {}) };
    return placeHold(trx, { ...spec, pending: this.pending.get(tokenId) ?? 0, now: this.now() }).catch((e: unknown) => {
      if (e instanceof LimitRefusal) this.onRefused(e.refused);
      throw e;
    });
  }

  /** Nothing to wait for (undefined) when the token's allowance covers the call: the request path takes no promise. */
  reserve(key: string, tokenId: string, amount: number, billing: Billing | null = null): Promise<void> | undefined {
    // A token a charge was cut at holds for each call: its allowance's room in memory is not room in the store.
    if (this.atBound.size > 0 && this.atBound.has(tokenId))
      return this.reserveSlow(key, tokenId, amount, billing, null);
    if (this.allowances?.takeHeld(key, tokenId, amount, billing)) return undefined;
    return this.reserveSlow(key, tokenId, amount, billing, this.allowances);
  }

  private async reserveSlow(
    key: string,
    tokenId: string,
    amount: number,
    billing: Billing | null,
    allowances: Allowances | null,
  ): Promise<void> {
    if (allowances !== null && (await allowances.take(key, tokenId, amount, billing))) return;
    await this.db
      .transaction()
      .execute((trx) => this.placeHold(trx, key, tokenId, amount, billing, 'Token quota is not enough for this call'));
  }

  settleReserved(input: SyncChargeInput): Promise<number> | number {
    const allowances = this.allowances;
    const a = allowances?.end(input.requestId);
    return allowances && a !== undefined ? this.chargeFrom(allowances, a, input) : this.settleHold(input);
  }

  private async settleHold(input: SyncChargeInput): Promise<number> {
    if (!isBillable(input.usage))
      return this.db.transaction().execute(async (trx) => {
        await closeHold(trx, input.requestId, input.tokenId, 'settled', this.now());
        return 0;
      });
    return this.db.transaction().execute(async (trx) => {
      // The reservation closes here — or the reaper already released it (a call that outlived
      // TOLLWAY_RESERVATION_TTL_MS, its instance alive): a call that delivered is charged either way, and its ledger
      // key (the request id) keeps that to one charge, on the rows its reservation named.
      const target =
        (await closeHold(trx, input.requestId, input.tokenId, 'settled', this.now())) ??
        (await holdTarget(trx, input.requestId));
      const t = target ?? billingAllowance(input, input.billing ?? null, this.now(), this.periods).target;
      const charge = this.price(input.billingModel, input.usage, t.priceGroup);
      return this.chargeHeld(trx, this.syncRow(input, charge, t.accountId), t);
    });
  }

  /** A call that reserved from an allowance: its charge is queued (group commit) and takes what it used from it. */
  private chargeFrom(allowances: Allowances, a: Allowance, input: SyncChargeInput): number {
    if (!isBillable(input.usage) || this.queuedKeys.has(input.idempotencyKey ?? input.requestId)) return 0;
    const charge = this.price(input.billingModel, input.usage, a.target.priceGroup);
    this.queue(this.syncRow(input, charge, a.target.accountId, a, allowances.use(a, charge.amount)));
    return charge.amount;
  }

  /** Give the allowances back (a stopping instance, once its calls are done). */
  releaseAllowances(): Promise<void> {
    return this.allowances?.releaseAll() ?? Promise.resolve();
  }

  async releaseReserved(key: string): Promise<void> {
    if (this.allowances?.end(key) !== undefined) return;
    await this.db.transaction().execute(async (trx) => {
      const h = await trx.selectFrom('holds').select('token_id').where('hold_key', '=', key).executeTakeFirst();
      if (h) await closeHold(trx, key, h.token_id, 'released', this.now());
    });
  }

  reapReservations(olderThanMs: number, onReaped?: OnReaped): Promise<number> {
    return reapHolds(this.db, this.now, olderThanMs, onReaped);
  }

  /** A quota, budget or account changed: those tokens' allowances take no new call (allowances.ts). */
  retireAllowances(holder: AllowanceHolder): void {
    this.allowances?.retireFor(holder);
  }

  async settle(task: TaskRef, reported: Usage, within?: StoreTransaction): Promise<number> {
    const run = <R>(fn: (trx: Kysely<Database>) => Promise<R>): Promise<R> =>
      within ? fn(within) : this.db.transaction().execute(fn);
    return run(async (trx) => {
      const target = await closeHold(trx, task.taskId, task.tokenId, 'settled', this.now());
      if (target === null || !isBillable(reported)) return 0;
      // At the prices the task was created at (kept on its hold): a later price or group change does not reach it.
      // A hold from before they were kept: at its group's prices of now.
      const terms = parseTerms(target.terms);
      const charge = terms
        ? chargeAt(this.entryFor(task.billingModel), reported, terms)
        : this.price(task.billingModel, reported, target.priceGroup);
      // No more than the hold, or than what the token's and account's quotas have left once it is given back.
      const cap = Math.max(target.amount, await quotaRoom(trx, target, this.pending.get(task.tokenId) ?? 0));
      return this.chargeHeld(
        trx,
        this.cuts.checked(taskChargeRow(task, target.accountId, reported.kind, charge, this.now())),
        target,
        cap,
      );
    });
  }

  async release(task: TaskRef): Promise<boolean> {
    return this.db
      .transaction()
      .execute(async (trx) => (await closeHold(trx, task.taskId, task.tokenId, 'released', this.now())) !== null);
  }

  holdState(taskId: string, within?: StoreTransaction): Promise<'held' | 'settled' | 'released' | null> {
    return holdStateOf(within ?? this.db, taskId);
  }
}
