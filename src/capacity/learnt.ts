// Limits learnt from the upstream's refusals where none is stated or read: a 429 pauses the account x model for its
// Retry-After (or a back-off that grows with each refusal in a row) and halves the rate of the limit it named; each
// quiet interval adds a little back (additive increase, multiplicative decrease). Requests and tokens each move only
// their own rate; a burst refusal (the per-second request limit) moves the request rate, which is paced per second.
// Refusals that arrive while the gate is paused answer calls sent before the pause (in flight together, or made
// before the gate existed): they say nothing new, so they neither lengthen the back-off nor halve again.
import type { RefusedLimit } from './limits.ts';

const BACKOFF_MIN_MS = 1000;
const BACKOFF_MAX_MS = 30_000;
/** A refusal this long after the last one starts the back-off again from its minimum. */
const STRIKE_MEMORY_MS = 60_000;
const GROW_EVERY_MS = 5000;
const SLOT_MS = 5000;
const SLOTS = 12;
/** Requests a gate must have admitted before a refusal halves their rate. */
const MIN_SEEN = 4;
/**
 * The request rate a gate starts from when it has seen too little to halve: one a second, paced (bucket.ts), which is
 * within the per-second share (RPM/60, upstream-protocols.md §1) of any account allowing 60 requests a minute or more.
 */
const START_RPM = 60;

export class Learnt {
  /** Learnt requests and tokens per minute (null: nothing learnt). */
  rpm: number | null = null;
  tpm: number | null = null;
  pausedUntil = 0;
  private strikes = 0;
  private lastRefusal = 0;
  private grownAt = 0;
  /** Requests and tokens admitted per 5 s over the last minute: the rate a refusal halves. */
  private readonly reqs = new Array<number>(SLOTS).fill(0);
  private readonly toks = new Array<number>(SLOTS).fill(0);
  private slotAt = 0;
  /** When the first admission was counted: a gate younger than a minute has seen less than a minute's calls. */
  private firstAt = 0;

  /** Is anything learnt (a gate without stated limits is kept while this holds)? */
  get any(): boolean {
    return this.rpm !== null || this.tpm !== null || this.pausedUntil > 0;
  }

  admitted(tokens: number, now: number): void {
    if (this.firstAt === 0) this.firstAt = now;
    this.roll(now);
    const i = Math.floor(now / SLOT_MS) % SLOTS;
    this.reqs[i]! += 1;
    this.toks[i]! += tokens;
  }

  /** The upstream refused with a 429 of `kind`: pause, and halve that kind's rate. Returns the pause (ms). */
  refused(kind: RefusedLimit, retryAfterMs: number | null, now: number): number {
    this.roll(now);
    if (now < this.pausedUntil) {
      if (retryAfterMs !== null && retryAfterMs > 0) this.pausedUntil = Math.max(this.pausedUntil, now + retryAfterMs);
      return this.pausedUntil - now;
    }
    this.strikes = now - this.lastRefusal > STRIKE_MEMORY_MS ? 1 : this.strikes + 1;
    this.lastRefusal = now;
    this.grownAt = now;
    const pause =
      retryAfterMs !== null && retryAfterMs > 0
        ? retryAfterMs
        : Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** (this.strikes - 1));
    this.pausedUntil = Math.max(this.pausedUntil, now + pause);
    // Halved from what was admitted in the last minute; with too little seen (the gate is new) requests start at
    // one a second, so the calls that waited out the pause are not all sent at once.
    // Per minute: what the windows hold, scaled up when the gate has counted for less than a minute.
    const span = Math.min(SLOTS * SLOT_MS, Math.max(SLOT_MS, now - this.firstAt)) / 60_000;
    const seen = sum(this.reqs);
    const reqs = seen / span;
    const toks = sum(this.toks) / span;
    if (kind === 'tokens') {
      if (toks > 0) this.tpm = Math.max(1, Math.floor(Math.min(this.tpm ?? Infinity, toks) / 2));
    } else if (seen >= MIN_SEEN) this.rpm = Math.max(1, Math.floor(Math.min(this.rpm ?? Infinity, reqs) / 2));
    else if (this.rpm === null) this.rpm = START_RPM;
    return pause;
  }

  /** Additive increase: every quiet interval a learnt rate grows by a twentieth (at least one). */
  grow(now: number): boolean {
    if (this.rpm === null && this.tpm === null) return false;
    if (now - this.grownAt < GROW_EVERY_MS || now < this.pausedUntil) return false;
    const steps = Math.min(60, Math.floor((now - this.grownAt) / GROW_EVERY_MS));
    this.grownAt = now;
    let changed = false;
    for (let s = 0; s < steps; s++) {
      if (this.rpm !== null) this.rpm += Math.max(1, Math.round(this.rpm / 20));
      if (this.tpm !== null) this.tpm += Math.max(1, Math.round(this.tpm / 20));
      changed = true;
    }
    return changed;
  }

  private roll(now: number): void {
    const slot = Math.floor(now / SLOT_MS);
    if (this.slotAt === 0) this.slotAt = slot;
    for (let s = Math.max(this.slotAt + 1, slot - SLOTS + 1); s <= slot; s++) {
      this.reqs[s % SLOTS] = 0;
      this.toks[s % SLOTS] = 0;
    }
    this.slotAt = Math.max(this.slotAt, slot);
  }
}

const sum = (a: number[]): number => a.reduce((x, y) => x + y, 0);
