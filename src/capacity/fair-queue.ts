// The waiting calls of one upstream account x model, served round-robin across customer accounts with a deficit
// weighted by each account's weight: a tenant with weight 2 gets two turns for another's one while both wait, and a
// tenant alone takes every turn. A waiter's cost is one call. A tenant that starts waiting (it had none waiting) goes
// before the tenants already served, after the others that just started (as new flows do in fq_codel): a tenant
// asking for less than its share is served at the next turn, not after a round of the backlogged ones.

export interface Waiter {
  readonly tenant: string;
  readonly weight: number;
}

interface Lane<W extends Waiter> {
  readonly tenant: string;
  weight: number;
  deficit: number;
  readonly waiters: W[];
  /** Not served since it started waiting. */
  fresh: boolean;
}

export class FairQueue<W extends Waiter> {
  private readonly lanes = new Map<string, Lane<W>>();
  /** Tenants with waiters, in turn order; `cursor` is whose turn it is. */
  private ring: Lane<W>[] = [];
  private cursor = 0;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Waiters per tenant (the admin view). */
  byTenant(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const l of this.ring) out[l.tenant] = l.waiters.length;
    return out;
  }

  push(w: W): void {
    let lane = this.lanes.get(w.tenant);
    if (lane === undefined) {
      lane = { tenant: w.tenant, weight: w.weight, deficit: 0, waiters: [], fresh: true };
      this.lanes.set(w.tenant, lane);
      let i = this.cursor;
      while (i < this.ring.length && this.ring[i]!.fresh) i++;
      this.ring.splice(i, 0, lane);
    }
    lane.weight = w.weight;
    lane.waiters.push(w);
    this.count++;
  }

  /** Whose turn it is (not taken off): tops up the deficits of the tenants passed over. */
  peek(): W | undefined {
    if (this.count === 0) return undefined;
    for (;;) {
      if (this.cursor >= this.ring.length) this.cursor = 0;
      const lane = this.ring[this.cursor]!;
      if (lane.deficit >= 1) return lane.waiters[0];
      lane.deficit += lane.weight;
      if (lane.deficit < 1) this.cursor++;
    }
  }

  /** Take the waiter peek() named; its tenant keeps the turn while its deficit lasts. */
  shift(): W | undefined {
    const w = this.peek();
    if (w === undefined) return undefined;
    const lane = this.ring[this.cursor]!;
    lane.waiters.shift();
    lane.fresh = false;
    this.count--;
    lane.deficit -= 1;
    if (lane.waiters.length === 0) this.drop(lane);
    else if (lane.deficit < 1) this.cursor++;
    return w;
  }

  /** A waiter leaves before its turn (its client left, or its wait ran out). */
  remove(w: W): boolean {
    const lane = this.lanes.get(w.tenant);
    const i = lane ? lane.waiters.indexOf(w) : -1;
    if (lane === undefined || i < 0) return false;
    lane.waiters.splice(i, 1);
    this.count--;
    if (lane.waiters.length === 0) this.drop(lane);
    return true;
  }

  private drop(lane: Lane<W>): void {
    const i = this.ring.indexOf(lane);
    this.ring.splice(i, 1);
    if (i < this.cursor) this.cursor--;
    this.lanes.delete(lane.tenant);
  }
}
