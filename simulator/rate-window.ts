// A sliding window of counts (requests and tokens) in fixed steps: the sum over the last `spanMs`, kept as a running
// total so a check costs no scan. A count may be corrected later (a call's tokens, once its usage is known) while its
// step is still inside the window.

export class RateWindow {
  private readonly requests: Float64Array;
  private readonly tokens: Float64Array;
  private requestSum = 0;
  private tokenSum = 0;
  /** The newest step counted so far (absolute step number: time / stepMs). */
  private head = -1;

  constructor(
    readonly spanMs: number,
    readonly stepMs: number,
  ) {
    const n = Math.ceil(spanMs / stepMs);
    this.requests = new Float64Array(n);
    this.tokens = new Float64Array(n);
  }

  /** The step `now` falls in. */
  stepOf(now: number): number {
    return Math.floor(now / this.stepMs);
  }

  /** Move the window to `now`: steps that left it no longer count. */
  private advance(now: number): void {
    const step = this.stepOf(now);
    if (step <= this.head) return;
    const n = this.requests.length;
    if (step - this.head >= n) {
      this.requests.fill(0);
      this.tokens.fill(0);
      this.requestSum = 0;
      this.tokenSum = 0;
    } else {
      for (let s = this.head + 1; s <= step; s++) {
        const i = s % n;
        this.requestSum -= this.requests[i]!;
        this.tokenSum -= this.tokens[i]!;
        this.requests[i] = 0;
        this.tokens[i] = 0;
      }
    }
    this.head = step;
  }

  /** Requests and tokens counted within the window ending at `now`. */
  sums(now: number): { requests: number; tokens: number } {
    this.advance(now);
    return { requests: this.requestSum, tokens: Math.max(0, this.tokenSum) };
  }

  /** Count one request and its tokens at `now`. */
  add(now: number, tokens: number): void {
    this.advance(now);
    const i = this.stepOf(now) % this.requests.length;
    this.requests[i]! += 1;
    this.tokens[i]! += tokens;
    this.requestSum += 1;
    this.tokenSum += tokens;
  }

  /** Add `delta` tokens to the step a request was counted in (`at`), if that step is still in the window. */
  correct(at: number, delta: number, now: number): void {
    this.advance(now);
    const step = this.stepOf(at);
    if (step > this.head || this.head - step >= this.requests.length) return;
    this.tokens[step % this.tokens.length]! += delta;
    this.tokenSum += delta;
  }
}
