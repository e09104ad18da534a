// Upstream time limits for the hot calls (answers read whole, and streams), checked by one periodic sweep
// instead of undici's per-request timers. undici arms a fresh low-resolution timer per request for the headers
// and again for the body; cleared timers are only dropped at its next tick, so under load every request's two
// timer objects outlive the young generation and are promoted to the old one. Here a call is one
// entry in a list while it runs; the sweep aborts a call past its deadline with the same undici timeout errors,
// so the error mapping (upstream_timeout) is unchanged. Resolution: SWEEP_MS, finer than undici's ~0.5–1 s.
import { errors as undiciErrors } from 'undici';
import type { Abortable } from './abort-link.ts';

const SWEEP_MS = 100;

/** One running call's limit: until the answer starts, then between body chunks. */
export class Deadline {
  at = 0;
  inBody = false;
  controller: Abortable | null = null;
  /** Neighbours in the sweep's list of running calls; both null (and `listed` false) once the call is done. */
  prev: Deadline | null = null;
  next: Deadline | null = null;
  listed = false;

  constructor(
    private readonly sweep: DeadlineSweep,
    private readonly headersMs: number,
    private readonly bodyIdleMs: number,
  ) {}

  /** The request was handed to a connection (undici's headers timer starts at the same point). */
  started(c: Abortable): void {
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
    // Let go of the call: anything that still points at a finished deadline must not keep the upstream call
    // (request, handler, headers, chunks) alive — an old-generation reference to a finished deadline would
    // otherwise promote the whole call on every request until the next full GC.
    this.controller = null;
  }
}

/**
 * The running calls, as a list threaded through the deadlines themselves: adding and removing allocate nothing
 * (a Set reallocates its table as entries come and go — one discarded table every few dozen calls, each of them
 * promoted to the old generation under load) and a removed deadline points at nothing.
 */
export class DeadlineSweep {
  private head: Deadline | null = null;
  private tail: Deadline | null = null;
  private count = 0;
  private timer: NodeJS.Timeout | null = null;

  deadline(headersMs: number, bodyIdleMs: number): Deadline {
    return new Deadline(this, headersMs, bodyIdleMs);
  }

  /** Calls being watched (tests). */
  get size(): number {
    return this.count;
  }

  add(d: Deadline): void {
    if (d.listed) return;
    d.listed = true;
    d.prev = this.tail;
    if (this.tail) this.tail.next = d;
    else this.head = d;
    this.tail = d;
    this.count++;
    if (this.timer === null) {
      this.timer = setInterval(() => this.check(), SWEEP_MS);
      // Never keeps the process alive on its own: a running call holds its socket, which does.
      this.timer.unref();
    }
  }

  delete(d: Deadline): void {
    if (!d.listed) return;
    if (d.prev) d.prev.next = d.next;
    else this.head = d.next;
    if (d.next) d.next.prev = d.prev;
    else this.tail = d.prev;
    d.prev = null;
    d.next = null;
    d.listed = false;
    this.count--;
    if (this.count === 0) this.stop();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  private check(): void {
    const now = Date.now();
    // Collected first, aborted after: an abort settles its call synchronously, which edits the list.
    const expired: Deadline[] = [];
    for (let d = this.head; d !== null; d = d.next) if (now >= d.at) expired.push(d);
    for (const d of expired) {
      const c = d.controller;
      this.delete(d);
      c?.abort(d.inBody ? new undiciErrors.BodyTimeoutError() : new undiciErrors.HeadersTimeoutError());
    }
  }
}
