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
}

export class CircuitBreakers {
  private readonly states = new Map<string, State>();

  constructor(
    private readonly opts: BreakerOptions = { threshold: 5, cooldownMs: 30_000 },
    private readonly now: () => number = Date.now,
  ) {}

  private state(id: string): State {
    let s = this.states.get(id);
    if (!s) {
      s = { failures: 0, openUntil: 0, trialInFlight: false };
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

  /** The channel's circuit now: 'closed' (in rotation), 'open' (cooling down) or 'half-open' (a trial may go). */
  stateOf(id: string): 'closed' | 'open' | 'half-open' {
    const s = this.states.get(id);
    if (!s || s.failures < this.opts.threshold) return 'closed';
    return this.now() < s.openUntil ? 'open' : 'half-open';
  }

  isOpen(id: string): boolean {
    const s = this.states.get(id);
    return !!s && s.failures >= this.opts.threshold && this.now() < s.openUntil;
  }

  success(id: string): void {
    const s = this.states.get(id);
    if (s) {
      s.failures = 0;
      s.trialInFlight = false;
      s.openUntil = 0;
    }
  }

  failure(id: string): void {
    const s = this.state(id);
    s.failures += 1;
    s.trialInFlight = false;
    if (s.failures >= this.opts.threshold) s.openUntil = this.now() + this.opts.cooldownMs;
  }
}
