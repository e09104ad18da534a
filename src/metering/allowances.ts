// Allowances: the reservations of a busy token taken from one hold its instance placed for many calls, instead of a
// store transaction per call. The allowance is an ordinary hold row (key `lease_…`), placed by the same
// compare-and-set on the token, its account and its budget rows as a call's reservation (holds.ts), so every
// instance's allowances and reservations together never pass a quota or budget. Each charge taken from it is queued
// with the other charges (group commit) and moves the hold's amount, and `held`, by what it used, in the same
// transaction as its ledger line (ledger-write.ts, sqlite-row-writes.ts). A token only gets one while it is busy,
// and only while its rows have room for many calls: near the end of a quota each call reserves on its own, exactly.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import type { Billing } from './billing.ts';
import { limitRoom } from './balances/moves.ts';
import { BUDGET_PERIOD_RULES, flatRows, rowsOf, targetOfRows, type PeriodRule } from './balances/rows.ts';
import { ALLOWANCE_PREFIX, closeHold, placeHold } from './holds.ts';
import type { AllowanceRef } from './ledger-row.ts';
import type { AllowanceHolder } from './types.ts';

export interface AllowanceOptions {
  /** Reservations of one token within a second from which it takes an allowance (0: from its first call). */
  busyPerSecond: number;
  /** An allowance holds at most this many estimates of the call that takes it… */
  maxCalls: number;
  /** …and at most this share (1/n) of the room its rows have left. */
  shareOf: number;
  /** Below this many estimates of room no allowance is taken: each call reserves on its own. */
  minCalls: number;
  /**
   * Reservations are taken from one allowance for at most this long, then a new one is placed (well below
   * ALLOWANCE_STALE_MS).
   */
  lifetimeMs: number;
  /** An allowance no call used for this long is given back. */
  idleMs: number;
}

/**
 * An allowance hold not renewed for this long was left by a stopped instance: the reaper's rule for allowances,
 * whatever the reservation TTL (an instance renews every allowance it still uses far more often: ALLOWANCE_RENEW_MS).
 */
export const ALLOWANCE_STALE_MS = 300_000;
/** How often an instance marks the allowance holds it still uses (their calls included) as alive. */
export const ALLOWANCE_RENEW_MS = 60_000;

export const ALLOWANCE_DEFAULTS: AllowanceOptions = {
  busyPerSecond: 20,
  maxCalls: 64,
  shareOf: 4,
  minCalls: 8,
  lifetimeMs: 30_000,
  idleMs: 1_000,
};

export interface Allowance extends AllowanceRef {
  readonly tokenId: string;
  billing: Billing | null;
  /** What its hold still holds: a charge taken from it leaves it when the charge is queued. */
  amount: number;
  /** Reservations outstanding on it. */
  reserved: number;
  /** No new reservation from then: its lifetime, or the end of the first of its budget periods. */
  readonly until: number;
  lastUsed: number;
  retired: boolean;
}

/** A token that reserved from an allowance this recently gets its next one without proving it is busy again. */
const RECENT_MS = 10_000;

/** The same account, price group, time zone and budgets: an allowance placed under one serves the other. */
function sameTerms(a: Billing | null, b: Billing | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.accountId === b.accountId &&
    a.priceGroup === b.priceGroup &&
    a.timeZone === b.timeZone &&
    a.budgets.length === b.budgets.length &&
    a.budgets.every((x, i) => {
      const y = b.budgets[i];
      return y !== undefined && x.holderId === y.holderId && x.period === y.period && x.limit === y.limit;
    })
  );
}

export class Allowances {
  private readonly byToken = new Map<string, Allowance>();
  private readonly calls = new Map<string, { a: Allowance; amount: number }>();
  private readonly busy = new Map<string, { second: number; n: number }>();
  private readonly placing = new Map<string, Promise<void>>();
  /** When each token whose allowance ended last reserved from it. */
  private readonly lastHeld = new Map<string, number>();
  /** Tokens whose rows had too little room for an allowance: not asked again before then. */
  private readonly noRoomUntil = new Map<string, number>();
  /** Every allowance whose hold this instance has not given back: renewed while it is open. */
  private readonly open = new Set<Allowance>();
  private readonly givingBack = new Set<Promise<void>>();
  private renewedAt: number;
  /** Changes of terms (retireFor) so far: a placement under way when one happens is not used. */
  private changes = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => number,
    private readonly pendingOf: (tokenId: string) => number,
    private readonly opts: AllowanceOptions = ALLOWANCE_DEFAULTS,
    private readonly onError: (e: unknown) => void = () => undefined,
    private readonly periods: Readonly<Record<string, PeriodRule>> = BUDGET_PERIOD_RULES,
  ) {
    this.renewedAt = now();
    this.timer = setInterval(() => void this.sweep(), Math.max(50, Math.min(opts.idleMs, 1_000)));
    this.timer.unref();
  }

  /** When takeHeld found no room: place an allowance if the token is busy, and take `amount` for the call from it. */
  async take(key: string, tokenId: string, amount: number, billing: Billing | null): Promise<boolean> {
    if (!this.isBusy(tokenId)) return false;
    await this.place(tokenId, amount, billing).catch(this.onError);
    return this.takeHeld(key, tokenId, amount, billing);
  }

  /** The allowance a call's reservation came from, closed for the call (undefined: it reserved on its own). */
  end(key: string): Allowance | undefined {
    const c = this.calls.get(key);
    if (c === undefined) return undefined;
    this.calls.delete(key);
    c.a.reserved -= c.amount;
    if (c.a.retired && c.a.reserved === 0) void this.giveBack(c.a);
    return c.a;
  }

  /** A charge taken from `a`: what of it the allowance covers (the rest is beyond the estimate held). */
  use(a: Allowance, charge: number): number {
    const covered = Math.min(charge, a.amount);
    a.amount -= covered;
    return covered;
  }

  /** Give every allowance back (shutdown): their calls still settle, against the rows their allowances named. */
  async releaseAll(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.placing.values()].map((p) => p.catch(() => undefined)));
    // Retired ones too (their calls are done by now), and those already being given back.
    await Promise.all([...this.open].map((a) => this.giveBack(a)));
    await Promise.all(this.givingBack);
  }

  /** Take `amount` for the call from the token's allowance if it has room now; false: call `take`. */
  takeHeld(key: string, tokenId: string, amount: number, billing: Billing | null): boolean {
    const a = this.byToken.get(tokenId);
    if (a === undefined || a.reserved + amount > a.amount) return false;
    // The principal is read again every few seconds (a new object): the same terms keep the allowance.
    if (a.billing !== billing) {
      if (!sameTerms(a.billing, billing)) return false;
      a.billing = billing;
    }
    const now = this.now();
    if (now >= a.until) return false;
    a.reserved += amount;
    a.lastUsed = now;
    this.calls.set(key, { a, amount });
    return true;
  }

  /**
   * A quota, budget or account of these tokens changed: their allowances take no new reservation from now on (the
   * calls already reserved on them still end there), so the next calls reserve against the new terms.
   */
  retireFor(holder: AllowanceHolder): void {
    this.changes++;
    for (const a of [...this.byToken.values()])
      if ('tokenId' in holder ? a.tokenId === holder.tokenId : a.billing?.accountId === holder.accountId)
        this.retire(a);
  }

  private isBusy(tokenId: string): boolean {
    const now = this.now();
    const until = this.noRoomUntil.get(tokenId);
    if (until !== undefined) {
      if (now < until) return false;
      this.noRoomUntil.delete(tokenId);
    }
    // A token whose allowance is full, over or under other terms, or ended a moment ago, is still busy: its next
    // one is placed at once.
    if (
      this.opts.busyPerSecond === 0 ||
      this.byToken.has(tokenId) ||
      now - (this.lastHeld.get(tokenId) ?? Number.NEGATIVE_INFINITY) < RECENT_MS
    )
      return true;
    const second = Math.floor(now / 1000);
    let b = this.busy.get(tokenId);
    if (b === undefined || b.second !== second) {
      if (this.busy.size > 10_000) this.busy.clear();
      b = { second, n: 0 };
      this.busy.set(tokenId, b);
    }
    return ++b.n >= this.opts.busyPerSecond;
  }

  /** One placement per token at a time: the calls that arrive meanwhile wait for it. */
  private place(tokenId: string, estimate: number, billing: Billing | null): Promise<void> {
    const running = this.placing.get(tokenId);
    if (running !== undefined) return running;
    const p = this.placeNow(tokenId, estimate, billing).finally(() => this.placing.delete(tokenId));
    this.placing.set(tokenId, p);
    return p;
  }

  private async placeNow(tokenId: string, estimate: number, billing: Billing | null): Promise<void> {
    const old = this.byToken.get(tokenId);
    if (old !== undefined) this.retire(old);
    const now = this.now();
    const rows = rowsOf(tokenId, billing, now, this.periods);
    const until = Math.min(now + this.opts.lifetimeMs, ...rows.map((r) => r.end));
    const key = `${ALLOWANCE_PREFIX}${randomUUID()}`;
    const pending = this.pendingOf(tokenId);
    const changes = this.changes;
    const periods = this.periods;
    const amount = await this.db.transaction().execute(async (trx) => {
      const room = await limitRoom(trx, rows, pending);
      const size = Math.min(estimate * this.opts.maxCalls, Math.floor(room / this.opts.shareOf));
      if (size < estimate * this.opts.minCalls) return 0;
      const refusal = 'no room for an allowance';
      return (await placeHold(trx, { key, tokenId, amount: size, pending, billing, now, refusal, periods }).catch(
        () => false,
      ))
        ? size
        : 0;
    });
    if (amount === 0) {
      this.noRoomUntil.set(tokenId, now + 1_000);
      return;
    }
    const target = targetOfRows(rows, billing?.priceGroup ?? null);
    const tuple = { allowance: key, accountId: target.accountId, rows: flatRows(target) };
    const a: Allowance = {
      key,
      tokenId,
      billing,
      target,
      tuple,
      amount,
      reserved: 0,
      until,
      lastUsed: now,
      retired: false,
    };
    this.open.add(a);
    // Terms changed while it was placed (its room perhaps read before): given back unused.
    if (this.changes !== changes) void this.giveBack(a);
    else this.byToken.set(tokenId, a);
  }

  private retire(a: Allowance): void {
    if (this.byToken.get(a.tokenId) === a) {
      this.byToken.delete(a.tokenId);
      this.lastHeld.set(a.tokenId, a.lastUsed);
    }
    a.retired = true;
    if (a.reserved === 0) void this.giveBack(a);
  }

  /** Close the allowance's hold: what it still holds goes back to its rows (charges queued from it skip `held`). */
  private giveBack(a: Allowance): Promise<void> {
    a.retired = true;
    if (this.byToken.get(a.tokenId) === a) this.byToken.delete(a.tokenId);
    this.open.delete(a);
    const p: Promise<void> = this.db
      .transaction()
      .execute(async (trx) => void (await closeHold(trx, a.key, a.tokenId, 'released', this.now())))
      .catch(this.onError)
      .finally(() => this.givingBack.delete(p));
    this.givingBack.add(p);
    return p;
  }

  private sweep(): void {
    const now = this.now();
    for (const [t, at] of this.lastHeld) if (now - at >= RECENT_MS) this.lastHeld.delete(t);
    for (const a of [...this.byToken.values()])
      if (now >= a.until || (a.reserved === 0 && now - a.lastUsed >= this.opts.idleMs)) this.retire(a);
    if (now - this.renewedAt >= ALLOWANCE_RENEW_MS) void this.renew(now);
  }

  /**
   * Mark the holds of the allowances still open here as alive, so the reaper leaves them (ALLOWANCE_STALE_MS). One
   * row per statement: an update that locks one row cannot deadlock with a batch of charges moving several.
   */
  private async renew(now: number): Promise<void> {
    this.renewedAt = now;
    for (const a of [...this.open])
      await this.db
        .updateTable('holds')
        .set({ updated_at: now })
        .where('hold_key', '=', a.key)
        .where('state', '=', 'held')
        .execute()
        .catch(this.onError);
  }
}
