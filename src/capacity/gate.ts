// Admission to one upstream account x model: a call takes a request and its token estimate from the buckets and
// a concurrency slot, or waits in the fair queue until they have room — at most the queue wait, then the gateway
// answers 429 itself. A call with room and nobody waiting is admitted synchronously (no promise).
import { GatewayError } from '../errors/gateway-error.ts';
import type { CapacityCounters, Pace } from './counters.ts';
import { FairQueue } from './fair-queue.ts';
import { Learnt } from './learnt.ts';
import { NO_LIMITS, type Limits, type RefusedLimit } from './limits.ts';
import { Ticket, type WaitReason } from './ticket.ts';
import { RecentUse } from './use.ts';

/** Subscribe to the client leaving; returns the unsubscribe. */
export type OnLeave = (listener: () => void) => () => void;

export interface GateEvents {
  admitted(gate: Gate, waitedMs: number): void;
  /** The gateway answered 429 itself (the wait ran out), or the client left while queued. */
  refused(gate: Gate, why: 'timeout' | 'left'): void;
}

export interface GateDeps {
  readonly counters: CapacityCounters;
  readonly queueWaitMs: number;
  readonly now: () => number;
  readonly events?: GateEvents;
}

interface Waiting {
  readonly tenant: string;
  readonly weight: number;
  readonly tokens: number;
  readonly since: number;
  reason: WaitReason;
  resolve(t: Ticket): void;
  reject(e: GatewayError): void;
  timer: ReturnType<typeof setTimeout> | null;
  unsubscribe: (() => void) | null;
}

const FULL = -1;

export class Gate {
  /** The limits stated or read for this account x model (learnt ones apply where these are null). */
  private limits: Limits = NO_LIMITS;
  readonly learnt = new Learnt();
  /** Admitted here over the last minute (the admin view). */
  readonly use = new RecentUse();
  private rpmPace: Pace | null = null;
  private tpmPace: Pace | null = null;
  inFlight = 0;
  private readonly queue = new FairQueue<Waiting>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private pumping = false;
  private why: WaitReason = 'queue';

  constructor(
    readonly key: string,
    readonly upstreamAccount: string,
    readonly model: string,
    private readonly deps: GateDeps,
  ) {}

  get waiting(): number {
    return this.queue.size;
  }

  waitingByTenant(): Record<string, number> {
    return this.queue.byTenant();
  }

  /** The limits in force: stated or read, else learnt. */
  effective(): Limits {
    return {
      rpm: this.limits.rpm ?? this.learnt.rpm,
      tpm: this.limits.tpm ?? this.learnt.tpm,
      concurrency: this.limits.concurrency,
    };
  }

  /** Where each limit in force comes from: stated or read (the gate does not tell them apart), learnt, or none. */
  sources(): Record<'rpm' | 'tpm' | 'concurrency', 'set' | 'learnt' | 'none'> {
    const of = (set: number | null, learnt: number | null) =>
      set !== null ? 'set' : learnt !== null ? 'learnt' : 'none';
    return {
      rpm: of(this.limits.rpm, this.learnt.rpm),
      tpm: of(this.limits.tpm, this.learnt.tpm),
      concurrency: of(this.limits.concurrency, null),
    };
  }

  /** Does a call's token estimate count here (a token rate is in force)? Without one it is not worked out. */
  countsTokens(): boolean {
    return this.tpmPace !== null;
  }

  setLimits(l: Limits): void {
    this.limits = l;
    this.repace();
  }

  /** Is there room for a call now (nobody waiting, not paused, a slot free)? Routing prefers such channels. */
  hasRoom(): boolean {
    const c = this.limits.concurrency;
    return this.queue.size === 0 && this.deps.now() >= this.learnt.pausedUntil && (c === null || this.inFlight < c);
  }

  admit(tenant: string, weight: number, tokens: number, onLeave: OnLeave | null): Ticket | Promise<Ticket> {
    if (this.queue.size === 0 && !this.pumping) {
      const r = this.tryTake(tokens);
      if (r === 0) return this.ticket(tokens, 0, null);
      if (typeof r !== 'number')
        return r.then((w) => (w === 0 ? this.ticket(tokens, 0, null) : this.wait(tenant, weight, tokens, onLeave)));
    }
    return this.wait(tenant, weight, tokens, onLeave);
  }

  /** The upstream refused a call of this gate with a 429: pause and learn (learnt.ts). */
  refused(kind: RefusedLimit, retryAfterMs: number | null): void {
    this.learnt.refused(kind, retryAfterMs, this.deps.now());
    this.repace();
    if (this.queue.size > 0) this.pump();
  }

  /** A ticket was settled. */
  released(tokens: number, used: number | undefined): void {
    this.inFlight--;
    if (used !== undefined && used !== tokens) {
      this.use.add(0, used - tokens, this.deps.now());
      if (this.tpmPace !== null) this.deps.counters.adjustTokens(this.key, this.tpmPace, tokens - used);
    }
    if (this.queue.size > 0) this.pump();
  }

  /** Seconds a refused client is told to wait: the pause, or the queue ahead at the request rate. */
  retryAfterS(): number {
    const now = this.deps.now();
    if (now < this.learnt.pausedUntil) return Math.max(1, Math.ceil((this.learnt.pausedUntil - now) / 1000));
    const rpm = this.rpmPace?.perMinute;
    return rpm ? Math.min(60, Math.max(1, Math.ceil(((this.queue.size + 1) * 60) / rpm))) : 1;
  }

  private repace(): void {
    const e = this.effective();
    if (e.rpm !== (this.rpmPace?.perMinute ?? null))
      this.rpmPace = e.rpm === null ? null : { perMinute: e.rpm, kind: 'requests' };
    if (e.tpm !== (this.tpmPace?.perMinute ?? null))
      this.tpmPace = e.tpm === null ? null : { perMinute: e.tpm, kind: 'tokens' };
  }

  /** 0: taken (slot and buckets); FULL: no slot until one is released; else ms until the buckets may have room. */
  private tryTake(tokens: number): number | Promise<number> {
    const now = this.deps.now();
    if (this.learnt.grow(now)) this.repace();
    if (now < this.learnt.pausedUntil) {
      this.why = 'paused';
      return this.learnt.pausedUntil - now;
    }
    const c = this.limits.concurrency;
    if (c !== null && this.inFlight >= c) {
      this.why = 'concurrency';
      return FULL;
    }
    this.inFlight++;
    if (this.rpmPace === null && this.tpmPace === null) return 0;
    const r = this.deps.counters.take(this.key, this.rpmPace, this.tpmPace, tokens);
    if (typeof r === 'number') {
      if (r !== 0) this.notTaken();
      return r;
    }
    return r.then((w) => {
      if (w !== 0) this.notTaken();
      return w;
    });
  }

  private notTaken(): void {
    this.inFlight--;
    this.why = 'rate';
  }

  private ticket(tokens: number, waitedMs: number, reason: WaitReason | null): Ticket {
    const now = this.deps.now();
    this.learnt.admitted(tokens, now);
    this.use.add(1, tokens, now);
    this.deps.events?.admitted(this, waitedMs);
    return new Ticket(this, tokens, waitedMs, reason);
  }

  private wait(tenant: string, weight: number, tokens: number, onLeave: OnLeave | null): Promise<Ticket> {
    return new Promise<Ticket>((resolve, reject) => {
      const w: Waiting = {
        tenant,
        weight,
        tokens,
        since: this.deps.now(),
        reason: this.why,
        resolve,
        reject,
        timer: null,
        unsubscribe: null,
      };
      w.timer = setTimeout(() => this.giveUp(w, 'timeout'), this.deps.queueWaitMs);
      if (onLeave) w.unsubscribe = onLeave(() => this.giveUp(w, 'left'));
      this.queue.push(w);
      this.pump();
    });
  }

  private giveUp(w: Waiting, why: 'timeout' | 'left'): void {
    if (!this.queue.remove(w)) return;
    this.done(w);
    this.deps.events?.refused(this, why);
    if (why === 'left')
      w.reject(
        new GatewayError('upstream_error', 'The client left while the call was queued', { callerAborted: true }),
      );
    else {
      const s = this.retryAfterS();
      w.reject(
        new GatewayError(
          'upstream_capacity',
          `The upstream account serving model '${this.model}' is at capacity; retry in ${s} s`,
          {
            headers: { 'retry-after': String(s) },
          },
        ),
      );
    }
    // The one that left may have been the one whose turn it was.
    if (this.queue.size > 0) this.pump();
    else this.deps.counters.withdraw?.(this.key);
  }

  private done(w: Waiting): void {
    if (w.timer !== null) clearTimeout(w.timer);
    w.unsubscribe?.();
  }

  private grant(w: Waiting): void {
    this.done(w);
    w.resolve(this.ticket(w.tokens, this.deps.now() - w.since, w.reason));
  }

  /** Admit waiters in their fair turn while there is room; then wake when there may be more. */
  private pump(): void {
    if (this.pumping) return;
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    for (;;) {
      const w = this.queue.peek();
      if (w === undefined) return;
      const r = this.tryTake(w.tokens);
      if (r === 0) {
        this.queue.shift();
        this.grant(w);
        continue;
      }
      w.reason = this.why;
      if (typeof r === 'number') {
        if (r > 0) this.timer = setTimeout(() => this.wake(), r);
        return;
      }
      this.pumping = true;
      void r.then((wait) => this.pumped(w, wait));
      return;
    }
  }

  private wake(): void {
    this.timer = null;
    this.pump();
  }

  /** A shared take answered for the waiter whose turn it was. */
  private pumped(w: Waiting, wait: number): void {
    this.pumping = false;
    if (wait === 0) {
      if (this.queue.peek() === w) {
        this.queue.shift();
        this.grant(w);
      } else if (this.queue.remove(w)) this.grant(w);
      else this.released(w.tokens, 0);
    } else if (wait > 0) this.timer = setTimeout(() => this.wake(), wait);
    if (this.queue.size > 0 && this.timer === null) this.pump();
  }
}
