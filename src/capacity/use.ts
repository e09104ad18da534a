// What an account x model admitted on this instance over the last minute, per second: requests and tokens (each
// call's estimate, corrected by the usage it reported). The admin view's "current use".
const SLOTS = 60;

export class RecentUse {
  private readonly reqs = new Array<number>(SLOTS).fill(0);
  private readonly toks = new Array<number>(SLOTS).fill(0);
  /** The second the slots were last moved to. */
  private at = 0;

  add(requests: number, tokens: number, now: number): void {
    const s = this.roll(now);
    this.reqs[s % SLOTS]! += requests;
    this.toks[s % SLOTS]! += tokens;
  }

  /** Requests and tokens in the last 60 s. */
  lastMinute(now: number): { requests: number; tokens: number } {
    this.roll(now);
    return {
      requests: this.reqs.reduce((a, b) => a + b, 0),
      tokens: Math.max(
        0,
        this.toks.reduce((a, b) => a + b, 0),
      ),
    };
  }

  private roll(now: number): number {
    const s = Math.floor(now / 1000);
    for (let i = Math.max(this.at + 1, s - SLOTS + 1); i <= s; i++) {
      this.reqs[i % SLOTS] = 0;
      this.toks[i % SLOTS] = 0;
    }
    this.at = Math.max(this.at, s);
    return s;
  }
}
