// The background poller and the family A client callbacks on a thread of their own (TOLLWAY_TASK_POLLER_THREAD),
// with their own store connection and upstream client: a backlog of open tasks then costs the request thread
// nothing — no status queries, no claims, no JSON — and it shares the store through the same leases another
// instance would. The thread's log lines are written to this process's log; admin changes made here reach it at
// once (a cluster bus, when configured, reaches it too).
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { ClusterEvent } from '../cluster/cluster-bus.ts';
import type { Config } from '../config/config.ts';
import { threadEntry } from '../runtime/thread-entry.ts';

/** What the thread is started with (structured-cloned). */
export interface PollerThreadData {
  config: Config;
  adminKey: string;
  secret: string;
  location: { url: string; pgSchema?: string };
  /** Shared, not copied: the poller thread and the request thread keep one upstream query rate. */
  queryRateMemory: SharedArrayBuffer;
  /** The lease owner of the instance's poller, the same for every start of the thread. */
  taskOwner: string;
}

/** Thread → parent: a log line, ready (composed and polling), stopped (store closed), or a start failure. */
export type PollerThreadMessage =
  | { log: string }
  | { ready: true; tid: number | null }
  | { stopped: true }
  | { failed: string };
/** Parent → thread. */
export type PollerThreadCommand = { stop: true } | { event: ClusterEvent } | { kick: true };

/** First restart delay after the thread ended unexpectedly; doubles per failed start, up to RESTART_MAX_MS. */
const RESTART_MS = 1000;
const RESTART_MAX_MS = 30_000;
/** A thread that has not finished its round and closed its store by then is terminated (its leases expire). */
const STOP_TIMEOUT_MS = 30_000;

export class PollerThread {
  private worker: Worker | null = null;
  private wanted = false;
  private restartTimer: NodeJS.Timeout | null = null;
  private restartDelay: number;
  /** A thread has been ready once: later failed starts are retried (the first is the caller's to handle). */
  private everStarted = false;
  /** The running thread's OS thread id (Linux), e.g. to see its scheduling priority. */
  tid: number | null = null;

  /** `restartMs`: the first restart delay (tests shorten it rather than wait seconds for each restart). */
  constructor(
    private readonly data: PollerThreadData,
    private readonly sink: { write(line: string): unknown },
    private readonly logger: Logger,
    private readonly restartMs = RESTART_MS,
  ) {
    this.restartDelay = restartMs;
  }

  /**
   * Start the thread; resolves once it polls. A failed start is not retried: it rejects (the gateway does not start).
   */
  async start(): Promise<void> {
    this.wanted = true;
    if (this.worker) return;
    try {
      await this.spawn();
    } catch (e) {
      await this.stop();
      throw e;
    }
  }

  /** Stop polling: the thread finishes its round, drops its leases, closes its store and exits. */
  async stop(): Promise<void> {
    this.wanted = false;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    const w = this.worker;
    if (!w) return;
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => {
        this.logger.error(
          { timeout_ms: STOP_TIMEOUT_MS },
          'task poller thread did not stop in time; terminated (its leases expire)',
        );
        void w.terminate();
      }, STOP_TIMEOUT_MS);
      w.once('exit', () => {
        clearTimeout(force);
        resolve();
      });
      w.postMessage({ stop: true } satisfies PollerThreadCommand);
    });
  }

  /** Tests: end the thread abruptly, as a crash in it would. */
  async kill(): Promise<void> {
    await this.worker?.terminate();
  }

  /** An admin change made in this process: the thread's caches follow it. */
  publish(event: ClusterEvent): void {
    this.worker?.postMessage({ event } satisfies PollerThreadCommand);
  }

  /**
   * A family A task finished here with a client callback due: the thread's dispatcher sends it now, not at its next
   * tick.
   */
  kick(): void {
    this.worker?.postMessage({ kick: true } satisfies PollerThreadCommand);
  }

  private spawn(): Promise<void> {
    const { entry, eval: isEval } = threadEntry(import.meta.url, '../poller-worker');
    const w = new Worker(entry, { eval: isEval, workerData: this.data, stdout: false, stderr: false });
    this.worker = w;
    return new Promise<void>((resolve, reject) => {
      let started = false;
      let failure = '';
      w.on('message', (m: PollerThreadMessage) => {
        if ('log' in m) this.sink.write(m.log);
        else if ('ready' in m) {
          started = true;
          this.everStarted = true;
          this.tid = m.tid;
          this.restartDelay = this.restartMs;
          resolve();
        } else if ('failed' in m) failure = m.failed;
      });
      w.on('error', (e) => this.logger.error({ err: String(e) }, 'task poller thread failed'));
      w.on('exit', (code) => {
        if (this.worker === w) this.worker = null;
        if (!started)
          reject(new Error(`the task poller thread did not start (exit code ${code})${failure ? `: ${failure}` : ''}`));
        // An unexpected end (not stop()): polling must not silently stop, so it starts again, backing off while
        // starts fail (the store or Redis unreachable) and for as long as it takes.
        if (this.wanted && this.everStarted) this.restartLater(code, failure);
      });
    });
  }

  private restartLater(code: number, failure: string): void {
    const delay = this.restartDelay;
    this.restartDelay = Math.min(RESTART_MAX_MS, delay * 2);
    this.logger.error(
      { code, retry_ms: delay, ...(failure ? { err: failure } : {}) },
      'task poller thread exited; restarting it',
    );
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      // A failed start ends in the thread's exit, which schedules the next attempt.
      if (this.wanted && !this.worker) this.spawn().catch(() => undefined);
    }, delay);
    this.restartTimer.unref();
  }
}
