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
  intervalMs: number;
  maxBatch: number;
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

  constructor(private readonly opts: GroupCommitOptions<T>) {}

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
    if (this.queue.length >= this.opts.maxBatch) void this.flush();
    else this.schedule(this.opts.intervalMs);
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
        await this.opts.write(batch);
        this.failures = 0;
      } catch (e) {
        const pass = batch.length > 1 && this.opts.onRejected ? await this.rowByRow(batch) : null;
        if (pass !== null && pass.settled > 0) {
          this.queue = this.queue.slice(pass.settled);
          left -= pass.settled;
          if (left === 0) this.oldestAt = writeBegan;
          if (pass.settled === batch.length) continue;
        }
        this.failures++;
        this.opts.onError(pass?.fault ?? e, this.queue.length);
        this.schedule(Math.min(5000, 50 * 2 ** Math.min(this.failures, 7)));
        return;
      }
      this.queue = this.queue.slice(batch.length);
      left -= batch.length;
      // A backlog older than this write keeps its time; rows queued during the write are no older than it.
      if (left === 0) this.oldestAt = writeBegan;
      this.opts.onCommitted?.(batch);
    }
    if (this.queue.length > 0) this.schedule(this.opts.intervalMs);
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
