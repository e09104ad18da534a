// Group commit for write-behind rows (ledger charges, request-log rows): rows are queued on the request path
// and written in one batch every `intervalMs` (or as soon as `maxBatch` are queued), one batch at a time.
// A failed batch stays queued and is retried with back-off (the rows' unique keys make a retry safe). With
// `onRejected`, a failed batch is first tried row by row, so one row the store will never take cannot hold back
// every row after it: a row the store refuses itself (a constraint, a value it cannot hold: store-errors.ts) is set
// aside once other rows go through; at the first failure that is the store's own (a lost connection, a timeout,
// a full disk) the pass stops, and that row and those after it stay queued — a passing fault never drops a row.
import { isRowRefusal } from './store-errors.ts';

export interface GroupCommitOptions<T> {
  /** Write one batch; resolves once it is durable in the store. */
  write(batch: T[]): Promise<void>;
  /** Called after a batch was written (bookkeeping of what is still pending). */
  onCommitted?(batch: T[]): void;
  /** Reports a failed batch write; the rows stay queued. */
  onError(e: unknown, queued: number): void;
  /** Rows the store refused while other rows of the same attempt were written: they leave the queue. */
  onRejected?(rows: T[], e: unknown): void;
  /** Is this error the store's refusal of the row written (not a passing fault)? Default: isRowRefusal. */
  isRefusal?(e: unknown): boolean;
  /** The flush interval of the queue's own timer (with `tick`, the tick's interval applies instead). */
  intervalMs: number;
  maxBatch: number;
  /** A timer shared with other queues (FlushTick): when it fires, every queue on it with rows flushes in that turn. */
  tick?: FlushTick;
  /** Back-pressure (`behind`) once the oldest row queued is this old (ms); none without it. */
  maxAgeMs?: number;
}

/**
 * One timer for several write-behind queues (the ledger's and the request log's). When it fires, each queue on it
 * that has rows flushes, in the same turn, so a writer that commits what it was handed in one turn together
 * (sqlite-batch-writer.ts) writes both kinds in one transaction: one commit per interval instead of one per queue.
 */
export class FlushTick {
  private timer: NodeJS.Timeout | null = null;
  private readonly members: Array<() => void> = [];

  constructor(readonly intervalMs: number) {}

  join(flush: () => void): void {
    this.members.push(flush);
  }

  schedule(): void {
    if (this.timer) return;
    // unref: a pending batch must not keep a stopped process alive; graceful shutdown drains through flush().
    this.timer = setTimeout(() => this.fire(), this.intervalMs);
    this.timer.unref();
  }

  private fire(): void {
    this.timer = null;
    for (const flush of this.members) flush();
  }
}

/** What the metrics read of a write-behind queue at scrape time. */
export interface WriteBacklog {
  /** Rows queued and not yet written (a batch being written included). */
  readonly queued: number;
  /** How long the oldest of them has waited (ms). */
  lagMs(): number;
}

export class GroupCommit<T> implements WriteBacklog {
  private queue: T[] = [];
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private failures = 0;
  /**
   * When the oldest row still queued was queued (performance.now()), taken only when a row lands in an empty queue,
   * so a push costs no clock read while rows wait. After a commit leaves rows, the time that batch's write began:
   * those rows came in during it (or were a backlog already older), so the age read from it never understates.
   */
  private oldestAt = 0;
  /** Rows ever queued, and how many of them (counted the same way, from the first) were handed to `write`. */
  private pushed = 0;
  private handedThrough = 0;
  private handWaiters: Array<{ upTo: number; resolve: () => void }> = [];
  /** Callers held back (`behind`) until the rows queued before them have left the queue. */
  private behindWaiters: Array<{ upTo: number; resolve: () => void }> = [];

  constructor(private readonly opts: GroupCommitOptions<T>) {
    // On the shared tick, a queue waiting out a failed write's back-off (its own timer) lets that timer decide.
    opts.tick?.join(() => {
      if (this.queue.length > 0 && !this.timer) void this.flush();
    });
  }

  /** Rows queued and not yet written. */
  get queued(): number {
    return this.queue.length;
  }

  /** How long the oldest row still queued has waited (ms); 0 when none waits. */
  lagMs(now: number = performance.now()): number {
    return this.queue.length === 0 ? 0 : Math.max(0, now - this.oldestAt);
  }

  push(row: T): void {
    if (this.queue.length === 0) this.oldestAt = performance.now();
    this.queue.push(row);
    this.pushed++;
    if (this.queue.length >= this.opts.maxBatch) void this.flush();
    else this.soon();
  }

  /**
   * Back-pressure: undefined while the oldest row queued is younger than `maxAgeMs` — no allocation, one clock read
   * while rows wait. Past it, a promise that resolves once every row queued so far has left the queue, so a caller
   * that waits for it before answering adds no more answered-but-unwritten rows while the writer is behind: what a
   * crash can lose stays about `maxAgeMs` of answers. Not while writes fail (the rows wait for the store; answers do
   * not): a failed attempt releases the callers waiting.
   */
  behind(): Promise<void> | undefined {
    const max = this.opts.maxAgeMs;
    if (max === undefined || this.queue.length === 0 || this.failures > 0 || performance.now() - this.oldestAt < max)
      return undefined;
    const upTo = this.pushed;
    return new Promise<void>((resolve) => this.behindWaiters.push({ upTo, resolve }));
  }

  /** Rows through the `through`-th one ever queued have left the queue: the callers waiting for them go on. */
  private left(through: number): void {
    if (this.behindWaiters.length === 0) return;
    const waiting = this.behindWaiters;
    this.behindWaiters = [];
    for (const w of waiting) {
      if (w.upTo <= through) w.resolve();
      else this.behindWaiters.push(w);
    }
  }

  /** The rows not yet written, oldest first (a copy): what a shutdown that could not write them reports. */
  unwritten(): T[] {
    return [...this.queue];
  }

  /** Write everything queued so far; resolves when it is written (or the attempt failed and was rescheduled). */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.chain = this.chain.then(() => this.drain());
    return this.chain;
  }

  /**
   * Resolves once every row queued now has been handed to `write`, its write perhaps still under way (or, failing
   * that, once this flush ends). To a writer that commits what it is handed in order, in one transaction per turn
   * (sqlite-batch-writer.ts), whatever is handed after this resolves is written with these rows or after them.
   */
  handOver(): Promise<void> {
    const upTo = this.pushed;
    if (this.handedThrough >= upTo) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.handWaiters.push({ upTo, resolve });
      void this.flush().then(resolve);
    });
  }

  private handed(through: number): void {
    this.handedThrough = through;
    if (this.handWaiters.length === 0) return;
    const waiting = this.handWaiters;
    this.handWaiters = [];
    for (const w of waiting) {
      if (w.upTo <= through) w.resolve();
      else this.handWaiters.push(w);
    }
  }

  /** Flush after the interval: on the shared tick when there is one. */
  private soon(): void {
    if (this.timer) return;
    if (this.opts.tick) this.opts.tick.schedule();
    else this.schedule(this.opts.intervalMs);
  }

  private schedule(delay: number): void {
    if (this.timer) return;
    // unref: a pending batch must not keep a stopped process alive; graceful shutdown drains through flush().
    this.timer = setTimeout(() => void this.flush(), delay);
    this.timer.unref();
  }

  private async drain(): Promise<void> {
    // Only what was queued when this flush started: rows that arrive while a batch is being written wait for
    // the next interval, so an asynchronous writer still commits a few large batches, not a stream of tiny ones.
    let left = this.queue.length;
    while (left > 0) {
      const batch = this.queue.slice(0, Math.min(left, this.opts.maxBatch));
      const writeBegan = performance.now();
      try {
        const writing = this.opts.write(batch);
        this.handed(this.pushed - this.queue.length + batch.length);
        await writing;
        this.failures = 0;
      } catch (e) {
        // The batch is no longer handed over: it waits in the queue again.
        this.handedThrough = this.pushed - this.queue.length;
        const pass = batch.length > 1 && this.opts.onRejected ? await this.rowByRow(batch) : null;
        if (pass !== null && pass.settled > 0) {
          this.queue = this.queue.slice(pass.settled);
          this.left(this.pushed - this.queue.length);
          left -= pass.settled;
          if (left === 0) this.oldestAt = writeBegan;
          if (pass.settled === batch.length) continue;
        }
        this.failures++;
        this.left(Number.POSITIVE_INFINITY);
        this.opts.onError(pass?.fault ?? e, this.queue.length);
        this.schedule(Math.min(5000, 50 * 2 ** Math.min(this.failures, 7)));
        return;
      }
      this.queue = this.queue.slice(batch.length);
      this.left(this.pushed - this.queue.length);
      left -= batch.length;
      // A backlog older than this write keeps its time; rows queued during the write are no older than it.
      if (left === 0) this.oldestAt = writeBegan;
      this.opts.onCommitted?.(batch);
    }
    if (this.queue.length > 0) this.soon();
  }

  /**
   * Write `batch` one row at a time, in order, until a failure that is the store's own (`fault`). `settled`: how
   * many rows from the front are done with — written, or refused by the store and handed to onRejected; the rows
   * after them stay queued. 0 when none was written (a store that refuses every row tried is failing, not these
   * rows): the batch stays queued as it was. (Rows written here are not written twice on a retry: unique keys.)
   */
  private async rowByRow(batch: T[]): Promise<{ settled: number; fault: unknown }> {
    const isRefusal = this.opts.isRefusal ?? isRowRefusal;
    const written: T[] = [];
    const refused: T[] = [];
    let refusal: unknown;
    let fault: unknown;
    let settled = 0;
    for (const row of batch) {
      try {
        await this.opts.write([row]);
        written.push(row);
      } catch (e) {
        if (!isRefusal(e)) {
          fault = e;
          break;
        }
        refused.push(row);
        refusal = e;
        // Nothing goes through: the store is failing, not these rows (and each try may wait for a connection).
        if (written.length === 0 && refused.length >= 3) return { settled: 0, fault: e };
      }
      settled++;
    }
    if (written.length === 0) return { settled: 0, fault: fault ?? refusal };
    this.failures = 0;
    this.opts.onCommitted?.(written);
    if (refused.length > 0) this.opts.onRejected!(refused, refusal);
    return { settled, fault };
  }
}
