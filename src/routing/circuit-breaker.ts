// Takes a failing channel out of rotation for a while: after `threshold` consecutive failures the
// circuit opens for `cooldownMs`; then one trial request is let through (half-open).

export interface BreakerOptions {
  threshold: number;
  cooldownMs: number;
}

interface State {
  failures: number;
  openUntil: number;
  trialInFlight: boolean;
  /** The last few failures, newest last (what the operator sees in the channel view). */
  recent: Array<{ at: number; code: string }>;
}

/** How many recent failures a channel view shows. */
export const RECENT_FAILURES = 5;

/** A channel's breaker as the operator sees it (this instance's view: each instance keeps its own breakers). */
export interface BreakerView {
  state: 'closed' | 'open' | 'half-open';
  consecutive_failures: number;
  /** While open: when a trial request will be let through (ms). */
  open_until: number | null;
  recent_failures: Array<{ at: number; code: string }>;
}

/** A breaker that opened (its failures reached the threshold) or closed (a request succeeded while it was tripped). */
export type BreakerTransition = 'opened' | 'closed';

export class CircuitBreakers {
  private readonly states = new Map<string, State>();
  private readonly listeners: Array<(id: string, to: BreakerTransition, at: number) => void> = [];

  constructor(
    private readonly opts: BreakerOptions = { threshold: 5, cooldownMs: 30_000 },
    private readonly now: () => number = Date.now,
  ) {}

  /** Called on each transition of this instance's breakers (the operator's alerts). */
  onTransition(fn: (id: string, to: BreakerTransition, at: number) => void): void {
    this.listeners.push(fn);
  }

  private emit(id: string, to: BreakerTransition): void {
    const at = this.now();
    for (const fn of this.listeners) fn(id, to, at);
  }

  private state(id: string): State {
    let s = this.states.get(id);
    if (!s) {
      s = { failures: 0, openUntil: 0, trialInFlight: false, recent: [] };
      this.states.set(id, s);
    }
    return s;
  }

  /** May a request go to this channel now? (Claims the half-open trial slot when it does.) */
  allow(id: string): boolean {
    const s = this.states.get(id);
    if (!s || s.failures < this.opts.threshold) return true;
    if (this.now() < s.openUntil) return false;
    if (s.trialInFlight) return false;
    s.trialInFlight = true;
    return true;
  }

  isOpen(id: string): boolean {
    const s = this.states.get(id);
    return !!s && s.failures >= this.opts.threshold && this.now() < s.openUntil;
  }

  success(id: string): void {
    const s = this.states.get(id);
    if (s) {
      const tripped = s.failures >= this.opts.threshold;
      s.failures = 0;
      s.trialInFlight = false;
      s.openUntil = 0;
      if (tripped) this.emit(id, 'closed');
    }
  }

  failure(id: string, code = 'unknown'): void {
    const s = this.state(id);
    s.recent.push({ at: this.now(), code });
    if (s.recent.length > RECENT_FAILURES) s.recent.shift();
    s.failures += 1;
    s.trialInFlight = false;
    if (s.failures >= this.opts.threshold) s.openUntil = this.now() + this.opts.cooldownMs;
    // A failed half-open trial re-arms an open breaker: only the first trip is a transition.
    if (s.failures === this.opts.threshold) this.emit(id, 'opened');
  }

  /** Forget a channel's failures (its key or address changed: the old failures say nothing of the new ones). */
  reset(id: string): void {
    this.states.delete(id);
  }

  view(id: string): BreakerView {
    const s = this.states.get(id);
    if (!s) return { state: 'closed', consecutive_failures: 0, open_until: null, recent_failures: [] };
    const tripped = s.failures >= this.opts.threshold;
    const state = !tripped ? 'closed' : this.now() < s.openUntil ? 'open' : 'half-open';
    return {
      state,
      consecutive_failures: s.failures,
      open_until: state === 'open' ? s.openUntil : null,
      recent_failures: s.recent.map((f) => ({ ...f })),
    };
  }
}
