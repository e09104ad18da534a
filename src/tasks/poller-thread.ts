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
}

/** Thread → parent: a log line, ready (composed and polling), stopped (store closed), or a start failure. */
export type PollerThreadMessage = { log: string } | { ready: true; tid: number | null } | { stopped: true } | { failed: string };
/** Parent → thread. */
export type PollerThreadCommand = { stop: true } | { event: ClusterEvent };

const RESTART_MS = 1000;

export class PollerThread {
  private worker: Worker | null = null;
  private wanted = false;
  private restartTimer: NodeJS.Timeout | null = null;
  /** The running thread's OS thread id (Linux), e.g. to see its scheduling priority. */
  tid: number | null = null;

  constructor(
    private readonly data: PollerThreadData,
    private readonly sink: { write(line: string): unknown },
    private readonly logger: Logger,
  ) {}

  /** Start the thread; resolves once it polls. */
  async start(): Promise<void> {
    this.wanted = true;
    if (!this.worker) await this.spawn();
  }

  /** Stop polling: the thread finishes its round, drops its leases, closes its store and exits. */
  async stop(): Promise<void> {
    this.wanted = false;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    const w = this.worker;
    if (!w) return;
    await new Promise<void>((resolve) => {
      w.once('exit', () => resolve());
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

  private spawn(): Promise<void> {
    const { entry, eval: isEval } = threadEntry(import.meta.url, 'poller-worker');
    const w = new Worker(entry, { eval: isEval, workerData: this.data, stdout: false, stderr: false });
    this.worker = w;
    return new Promise<void>((resolve, reject) => {
      let started = false;
      w.on('message', (m: PollerThreadMessage) => {
        if ('log' in m) this.sink.write(m.log);
        else if ('ready' in m) {
          started = true;
          this.tid = m.tid;
          resolve();
        } else if ('failed' in m && !started) reject(new Error(`the task poller thread did not start: ${m.failed}`));
      });
      w.on('error', (e) => this.logger.error({ err: String(e) }, 'task poller thread failed'));
      w.on('exit', (code) => {
        if (this.worker === w) this.worker = null;
        if (!started) return reject(new Error(`the task poller thread exited with code ${code} before it started`));
        // An unexpected end (not stop()): polling must not silently stop, so it starts again.
        if (this.wanted) {
          this.logger.error({ code }, 'task poller thread exited; restarting it');
          this.restartTimer = setTimeout(() => {
            this.restartTimer = null;
            if (this.wanted && !this.worker) this.spawn().catch((e: unknown) => this.logger.error({ err: String(e) }, 'task poller thread restart failed'));
          }, RESTART_MS);
          this.restartTimer.unref();
        }
      });
    });
  }
}
