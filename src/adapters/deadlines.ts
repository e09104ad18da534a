// Upstream time limits for the hot calls (answers read whole, and streams), checked by one periodic sweep
// instead of undici's per-request timers. undici arms a fresh low-resolution timer per request for the headers
// and again for the body; cleared timers are only dropped at its next tick (~0.5 s later), so under load every
// request's two timer objects outlived the young generation: about half of the bytes the gateway promoted to
// the old generation per request (--trace-gc-nvp: ~500 → ~245 B/request without them). Here a call is one
// entry in a Set while it runs; the sweep aborts a call past its deadline with the same undici timeout errors,
// so the error mapping (upstream_timeout) is unchanged. Resolution: SWEEP_MS, finer than undici's ~0.5–1 s.
import { errors as undiciErrors, type Dispatcher } from 'undici';

const SWEEP_MS = 100;

/** One running call's limit: until the answer starts, then between body chunks. */
export class Deadline {
  at = 0;
  inBody = false;
  controller: Dispatcher.DispatchController | null = null;

  constructor(
    private readonly sweep: DeadlineSweep,
    private readonly headersMs: number,
    private readonly bodyIdleMs: number,
  ) {}

  /** The request was handed to a connection (undici's headers timer starts at the same point). */
  started(c: Dispatcher.DispatchController): void {
    this.controller = c;
    this.at = Date.now() + this.headersMs;
    this.sweep.add(this);
  }

  /** Response headers or a body chunk arrived (or a paused body resumed): the idle limit starts again. */
  progressed(): void {
    this.inBody = true;
    this.at = Date.now() + this.bodyIdleMs;
  }

  done(): void {
    this.sweep.delete(this);
    // Let go of the call: a discarded table of the sweep's Set that reached the old generation still points at
    // this deadline until the next full GC, and through the controller it kept the whole finished upstream call
    // alive — promoted to the old generation on every request, a mark-compact every ~0.4 s under load.
    this.controller = null;
  }
}

export class DeadlineSweep {
  private readonly live = new Set<Deadline>();
  private timer: NodeJS.Timeout | null = null;

  deadline(headersMs: number, bodyIdleMs: number): Deadline {
    return new Deadline(this, headersMs, bodyIdleMs);
  }

  /** Calls being watched (tests). */
  get size(): number {
    return this.live.size;
  }

  add(d: Deadline): void {
    this.live.add(d);
    if (this.timer === null) {
      this.timer = setInterval(() => this.check(), SWEEP_MS);
      // Never keeps the process alive on its own: a running call holds its socket, which does.
      this.timer.unref();
    }
  }

  delete(d: Deadline): void {
    this.live.delete(d);
    if (this.live.size === 0) this.stop();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  private check(): void {
    const now = Date.now();
    for (const d of this.live) {
      if (now < d.at) continue;
      this.live.delete(d);
      d.controller?.abort(d.inBody ? new undiciErrors.BodyTimeoutError() : new undiciErrors.HeadersTimeoutError());
    }
    if (this.live.size === 0) this.stop();
  }
}
