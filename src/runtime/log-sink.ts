// The log destination: lines are queued as strings and written to a file descriptor asynchronously, all lines
// queued so far in one write, and whatever is still queued is written synchronously when the process exits.
//
// Why not pino's own destination (SonicBoom): in its string mode every write() computes the byte length of the
// chunk being accumulated, which flattens that growing string again on each line — quadratic in the lines queued
// while one write is under way, and its buffer mode copies every line into a Buffer. This sink keeps the lines as
// strings and joins them once per write (figures: docs/performance.md).
// It keeps SonicBoom's behaviours that matter here: a pipe that is full (EAGAIN) is retried, a closed pipe (EPIPE)
// stops logging instead of crashing, and exit flushes synchronously.
import fs from 'node:fs';

/** Queued bytes beyond which new lines are dropped (a stalled stdout must not grow the heap without bound). */
const MAX_QUEUED_CHARS = 32 * 1024 * 1024;
const RETRY_MS = 10;

export class LogSink {
  private queue: string[] = [];
  private queuedChars = 0;
  /** Bytes of a write that went out only in part, sent before anything queued. */
  private rest: Buffer | null = null;
  private writing = false;
  private stopped = false;
  /** Lines dropped because the queue was full or the destination is gone. */
  dropped = 0;
  private readonly drained: Array<(err?: Error) => void> = [];
  private readonly onExit = () => this.flushSync();

  constructor(private readonly fd: number) {
    process.on('exit', this.onExit);
  }

  write(line: string): boolean {
    if (this.stopped || this.queuedChars + line.length > MAX_QUEUED_CHARS) {
      this.dropped++;
      return false;
    }
    this.queue.push(line);
    this.queuedChars += line.length;
    if (!this.writing) this.next();
    return true;
  }

  /** Calls back once everything queued so far is written (pino's logger.flush uses this). */
  flush(cb: (err?: Error) => void = () => undefined): void {
    if (!this.writing && this.queue.length === 0 && this.rest === null) cb();
    else this.drained.push(cb);
  }

  /**
   * Write everything queued, synchronously (at exit: there is no event loop left for the asynchronous writes).
   * A batch already handed to the thread pool is that thread's to write: it may land after these lines.
   */
  flushSync(): void {
    if (this.stopped) return;
    let data = this.take();
    for (let tries = 0; data.length > 0 && tries < 1000; ) {
      try {
        data = data.subarray(fs.writeSync(this.fd, data));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') return this.stop();
        tries++;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
      }
    }
  }

  /** Stop logging and forget the exit hook (tests, and a gateway closed inside a longer-lived process). */
  close(): void {
    this.flushSync();
    process.off('exit', this.onExit);
    this.stop();
  }

  /** Everything still to write, as bytes: the unsent part of the last write, then the queue. */
  private take(): Buffer {
    const head = this.rest;
    this.rest = null;
    const text = this.takeQueued();
    if (head === null) return Buffer.from(text, 'utf8');
    return text === '' ? head : Buffer.concat([head, Buffer.from(text, 'utf8')]);
  }

  private next(): void {
    if (this.rest === null && this.queue.length === 0) {
      this.writing = false;
      for (const cb of this.drained.splice(0)) cb();
      return;
    }
    this.writing = true;
    if (this.rest !== null) return this.send(this.rest);
    // A string goes to the kernel without an intermediate Buffer; only a partial write is kept as bytes.
    const text = this.takeQueued();
    fs.write(this.fd, text, null, 'utf8', (err, n) => this.done(err, n, text));
  }

  /** The queued lines as one string; the queue is empty afterwards. */
  private takeQueued(): string {
    const text = this.queue.length === 1 ? this.queue[0]! : this.queue.join('');
    this.queue = [];
    this.queuedChars = 0;
    return text;
  }

  private send(buf: Buffer): void {
    this.rest = null;
    fs.write(this.fd, buf, 0, buf.length, null, (err, n) => this.done(err, n, buf));
  }

  private done(err: NodeJS.ErrnoException | null, n: number, sent: string | Buffer): void {
    if (this.stopped) return;
    const bytes = () => (typeof sent === 'string' ? Buffer.from(sent, 'utf8') : sent);
    if (err) {
      if (err.code !== 'EAGAIN') return this.stop(err);
      // The pipe is full: try the same bytes again shortly (nothing was written).
      this.rest = bytes();
      setTimeout(() => this.next(), RETRY_MS).unref();
      return;
    }
    const length = typeof sent === 'string' ? Buffer.byteLength(sent, 'utf8') : sent.length;
    if (n < length) this.rest = bytes().subarray(n);
    this.next();
  }

  /** The destination is gone (EPIPE, a closed descriptor): drop from now on rather than fail the gateway. */
  private stop(err?: Error): void {
    this.stopped = true;
    this.dropped += this.queue.length;
    this.queue = [];
    this.queuedChars = 0;
    this.rest = null;
    this.writing = false;
    for (const cb of this.drained.splice(0)) cb(err);
  }
}

let stdout: LogSink | null = null;

/** The process's one stdout sink (every gateway in the process shares it, and one exit hook). */
export function stdoutSink(): LogSink {
  return (stdout ??= new LogSink(1));
}
