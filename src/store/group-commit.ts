// Group commit for write-behind rows (ledger charges, request-log rows): rows are queued on the request path
// and written in one batch every `intervalMs` (or as soon as `maxBatch` are queued), one batch at a time.
// A failed batch stays queued and is retried with back-off (the rows' unique keys make a retry safe). With
// `onRejected`, a failed batch is first tried row by row: when some rows are written and others still fail, the
// store refuses those rows themselves (not a lost connection) and they are set aside, so one row the store will never
// take cannot hold back every row after it.
export interface GroupCommitOptions<T> {
  /** Write one batch; resolves once it is durable in the store. */
  write(batch: T[]): Promise<void>;
  /** Called after a batch was written (bookkeeping of what is still pending). */
  onCommitted?(batch: T[]): void;
  /** Reports a failed batch write; the rows stay queued. */
  onError(e: unknown, queued: number): void;
  /** Rows the store refused while other rows of the same attempt were written: they leave the queue. */
  onRejected?(rows: T[], e: unknown): void;
  intervalMs: number;
  maxBatch: number;
}

export class GroupCommit<T> {
  private queue: T[] = [];
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private failures = 0;

  constructor(private readonly opts: GroupCommitOptions<T>) {}

  /** Rows queued and not yet written. */
  get queued(): number {
    return this.queue.length;
  }

  push(row: T): void {
    this.queue.push(row);
    if (this.queue.length >= this.opts.maxBatch) void this.flush();
    else this.schedule(this.opts.intervalMs);
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
      try {
        await this.opts.write(batch);
        this.failures = 0;
      } catch (e) {
        if (batch.length > 1 && this.opts.onRejected && (await this.rowByRow(batch))) {
          this.queue = this.queue.slice(batch.length);
          left -= batch.length;
          continue;
        }
        this.failures++;
        this.opts.onError(e, this.queue.length);
        this.schedule(Math.min(5000, 50 * 2 ** Math.min(this.failures, 7)));
        return;
      }
      this.queue = this.queue.slice(batch.length);
      left -= batch.length;
      this.opts.onCommitted?.(batch);
    }
    if (this.queue.length > 0) this.schedule(this.opts.intervalMs);
  }

  /**
   * Write `batch` one row at a time. True when at least one row was written: the rows that failed are the store's
   * refusal of those rows, and are handed to onRejected. False when none was written (the store itself is failing):
   * the batch stays queued as it was. (Rows written here are not written twice on a retry: unique keys.)
   */
  private async rowByRow(batch: T[]): Promise<boolean> {
    const written: T[] = [];
    const refused: T[] = [];
    let last: unknown;
    for (const row of batch) {
      try {
        await this.opts.write([row]);
        written.push(row);
      } catch (e) {
        refused.push(row);
        last = e;
        // Nothing goes through: the store is failing, not these rows (and each try may wait for a connection).
        if (written.length === 0 && refused.length >= 3) return false;
      }
    }
    if (written.length === 0) return false;
    this.failures = 0;
    this.opts.onCommitted?.(written);
    if (refused.length > 0) this.opts.onRejected!(refused, last);
    return true;
  }
}
