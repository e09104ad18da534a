// What the upstream said an upstream account is not entitled to (each upstream's errors.ts maps its refusal codes).
// A mark falls on what was refused — the upstream account and the upstream model the request named (a
// dated snapshot is its own model) — never on the catalogue entry, so a refusal of one snapshot leaves the entry's
// other models alone.
//
// A client can make the upstream answer so (a snapshot nobody has, a request the account may not make): one
// tenant's refusal therefore steers only that tenant's calls away, and the mark stands for every tenant once a
// second tenant was refused the same account and model. One tenant alone cannot hide a model from the others.

/** How long a mark stands after the refusal that made it. */
export const NOT_ENTITLED_TTL_MS = 10 * 60_000;
/** Tenants refused the same account and model before the mark applies to everyone. */
export const NOT_ENTITLED_WITNESSES = 2;
/** Past this many marks the table is emptied: marks only save calls that would be refused anyway. */
const MAX_MARKS = 10_000;

interface Mark {
  until: number;
  /** The tenants refused so far (at most NOT_ENTITLED_WITNESSES kept). */
  tenants: string[];
}

const keyOf = (account: string, upstreamModel: string): string => `${account}\n${upstreamModel}`;

export class EntitlementMarks {
  private readonly marks = new Map<string, Mark>();

  constructor(private readonly now: () => number) {}

  get size(): number {
    return this.marks.size;
  }

  /** The upstream refused `upstreamModel` to `account` as not entitled, on a request of `tenant`. */
  refused(account: string, upstreamModel: string, tenant: string): void {
    const key = keyOf(account, upstreamModel);
    const now = this.now();
    const m = this.marks.get(key);
    if (m === undefined || m.until <= now) {
      if (this.marks.size >= MAX_MARKS) this.marks.clear();
      this.marks.set(key, { until: now + NOT_ENTITLED_TTL_MS, tenants: [tenant] });
      return;
    }
    if (m.tenants.length >= NOT_ENTITLED_WITNESSES || m.tenants.includes(tenant)) {
      m.until = now + NOT_ENTITLED_TTL_MS;
      return;
    }
    m.tenants.push(tenant);
    m.until = now + NOT_ENTITLED_TTL_MS;
  }

  /** May `tenant`'s call (null: anyone's, e.g. the model list's visibility) go to `account` for `upstreamModel`? */
  allows(account: string, upstreamModel: string, tenant: string | null): boolean {
    const key = keyOf(account, upstreamModel);
    const m = this.marks.get(key);
    if (m === undefined) return true;
    if (m.until <= this.now()) {
      this.marks.delete(key);
      return true;
    }
    if (m.tenants.length >= NOT_ENTITLED_WITNESSES) return false;
    return tenant === null || !m.tenants.includes(tenant);
  }

  /** Forget what was learnt about these accounts (their channel's key, URL or models changed). */
  forget(accounts: ReadonlySet<string>): void {
    for (const key of [...this.marks.keys()]) if (accounts.has(key.slice(0, key.indexOf('\n')))) this.marks.delete(key);
  }

  /** Drop the marks whose time is over; how many remain. */
  prune(): number {
    const now = this.now();
    for (const [key, m] of this.marks) if (m.until <= now) this.marks.delete(key);
    return this.marks.size;
  }
}
