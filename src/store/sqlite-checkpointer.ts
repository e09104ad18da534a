// Runs the WAL checkpoints of a SQLite file store on a thread (sqlite-checkpoint-thread.ts) instead of on the
// event loop. SQLite's automatic checkpoint runs inside whichever commit crosses 1,000 WAL frames: under load
// that is a group commit on the event loop copying ~1,000 pages and waiting for fsyncs, which every in-flight
// request waits out (tail latency, and their objects then outlive young-generation collections). See
// docs/performance.md#sqlite-threads.
//
// When: at most every `intervalMs`, right after a group commit, and the next group commit waits until the thread
// answers (the rows are write-behind: a few ms more in the queue costs no request anything). With no commit in
// between, the checkpoint copies every frame, so the next commit starts the WAL over from its beginning and the
// file stays small; checkpoints racing with commits instead let the WAL grow under load.
// While the thread runs, the event loop's connection has automatic checkpoints off; until it is ready, and if it
// ever stops, they are on again — the WAL never grows without bound. A checkpoint only copies committed frames:
// durability is unchanged.
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import type { CheckpointReport, CheckpointThreadData } from './sqlite-checkpoint-thread.ts';
import { storeThreadEntry } from './thread-entry.ts';

/** SQLite's own default threshold, restored when the thread is not running. */
const AUTO_CHECKPOINT_FRAMES = 1000;
const DEFAULT_INTERVAL_MS = 200;
/** A checkpoint that has not answered by then no longer holds group commits back. */
const MAX_HOLD_MS = 2000;
// A small isolate: the thread holds one connection.
const THREAD_LIMITS = { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 };

export class SqliteCheckpointer {
  private thread: Worker | null = null;
  private running = false;
  private closing = false;
  private busy = false;
  private lastAt = 0;
  private hold: NodeJS.Timeout | null = null;
  private readonly waiting: Array<() => void> = [];
  /** The last report from the thread: WAL frames, and how many of them are in the database (tests, diagnostics). */
  last: { frames: number; copied: number } | null = null;
  /** Checkpoints the thread has answered. */
  done = 0;

  constructor(
    private readonly raw: BetterSqlite3.Database,
    private readonly path: string,
    private readonly intervalMs = DEFAULT_INTERVAL_MS,
  ) {}

  /** True while checkpoints run on the thread (the event loop's automatic checkpoints are off). */
  get active(): boolean {
    return this.running;
  }

  start(): void {
    if (this.thread || this.closing) return;
    let t: Worker;
    try {
      const { entry, eval: isEval } = storeThreadEntry('sqlite-checkpoint-thread');
      t = new Worker(entry, {
        eval: isEval,
        workerData: { path: this.path } satisfies CheckpointThreadData,
        resourceLimits: THREAD_LIMITS,
      });
    } catch {
      return; // stays with SQLite's automatic checkpoints
    }
    t.unref();
    this.thread = t;
    t.on('message', (m: { type: 'ready' } | CheckpointReport) => {
      if (this.thread !== t) return;
      if (m.type === 'ready') {
        if (this.closing) return;
        this.raw.pragma('wal_autocheckpoint = 0');
        this.running = true;
        return;
      }
      if (m.frames >= 0) this.last = { frames: m.frames, copied: m.copied };
      this.done++;
      this.release();
    });
    const down = () => {
      if (this.thread !== t) return;
      this.thread = null;
      this.stopped();
    };
    t.on('error', down);
    t.on('exit', down);
  }

  /** A group commit just finished: time for a checkpoint? (Then the next commit waits for it: see `whenIdle`.) */
  committed(): void {
    if (!this.running || this.busy || this.thread === null) return;
    const now = Date.now();
    if (now - this.lastAt < this.intervalMs) return;
    this.lastAt = now;
    this.busy = true;
    this.hold = setTimeout(() => this.release(), MAX_HOLD_MS);
    this.hold.unref();
    this.thread.postMessage('checkpoint');
  }

  /** Run `fn` now, or once the checkpoint under way has answered. */
  whenIdle(fn: () => void): void {
    if (this.busy) this.waiting.push(fn);
    else fn();
  }

  /** Stop the thread; the event loop's connection checkpoints by itself again (and on close). */
  async close(): Promise<void> {
    this.closing = true;
    const t = this.thread;
    this.thread = null;
    this.stopped();
    if (!t) return;
    await new Promise<void>((resolve) => {
      t.once('exit', () => resolve());
      // Referenced until it has exited: an idle (unreferenced) thread would let the process end before this resolves.
      t.ref();
      t.postMessage('close');
    });
  }

  /** Tests: stop the thread abruptly, as a crash would. */
  async kill(): Promise<void> {
    const t = this.thread;
    if (t) await t.terminate();
  }

  private release(): void {
    if (this.hold) clearTimeout(this.hold);
    this.hold = null;
    this.busy = false;
    for (const fn of this.waiting.splice(0)) fn();
  }

  /** The thread is gone (closed, crashed or killed): automatic checkpoints are back on, nothing waits for it. */
  private stopped(): void {
    this.release();
    if (!this.running) return;
    this.running = false;
    try {
      this.raw.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_FRAMES}`);
    } catch {
      // the connection is already closed: nothing left to checkpoint from here
    }
  }
}
