// The log destination: lines are queued as strings and written once per event-loop turn, all lines of the turn in
// one write, and whatever is still queued is written synchronously when the process exits.
//
// How a turn's lines reach the descriptor depends on what it is:
// - a file, a character device (/dev/null) or a terminal: one synchronous write. The kernel copies the bytes
//   into its page cache (or drops them) at once, so the write costs a system call and nothing else;
// - a pipe or a socket (a container runtime's log pipe, journald): a libuv stream on the descriptor, which makes it
//   non-blocking and writes at once while the reader keeps up; when the reader stalls, the lines wait in the queue
//   (bounded) until the stream has written the last turn's lines — the event loop never blocks on a slow reader.
// Neither hands a write to libuv's thread pool: a thread-pool write per turn woke a pool thread, and then the event
// loop for its completion, on every request of a lightly loaded gateway (docs/performance.md).
//
// Why not pino's own destination (SonicBoom): in its string mode every write() computes the byte length of the
// chunk being accumulated, which flattens that growing string again on each line — quadratic in the lines queued
// while one write is under way. This sink keeps the lines as strings and joins them once per write. It keeps
// SonicBoom's behaviours that matter here: a descriptor that is not ready (EAGAIN) is retried, a closed pipe (EPIPE)
// stops logging instead of crashing, and exit flushes synchronously.
import fs from 'node:fs';
import net from 'node:net';

/** Queued characters beyond which new lines are dropped (a stalled stdout must not grow the heap without bound). */
const MAX_QUEUED_CHARS = 32 * 1024 * 1024;
const RETRY_MS = 10;
/** The largest encoding buffer kept between writes; a longer turn (a burst behind a stalled terminal) gets its own. */
const MAX_SCRATCH_BYTES = 1024 * 1024;

/** 'sync': files, devices and terminals; 'stream': pipes and sockets (see the file comment). */
export type SinkMode = 'sync' | 'stream';

/** How to write to `fd`: a pipe or a socket gets a stream, anything else synchronous writes. */
export function modeOf(fd: number): SinkMode {
  try {
    const st = fs.fstatSync(fd);
    return st.isFIFO() || st.isSocket() ? 'stream' : 'sync';
  } catch {
    return 'sync';
  }
}

export class LogSink {
  private queue: string[] = [];
  private queuedChars = 0;
  /** Bytes a synchronous write could not send yet (EAGAIN, or a partial write), sent before anything queued. */
  private rest: Buffer | null = null;
  /** Where a turn's lines are encoded for a synchronous write (grown as needed, up to MAX_SCRATCH_BYTES). */
  private scratch: Buffer = Buffer.allocUnsafeSlow(16 * 1024);
  /** A turn's write is scheduled (setImmediate), waits for a retry, or follows the stream write under way. */
  private pending = false;
  private stopped = false;
  /** Lines dropped because the queue was full or the destination is gone. */
  dropped = 0;
  private readonly drained: Array<(err?: Error) => void> = [];
  private readonly onExit = () => this.flushSync();
  private readonly turn = () => this.writeTurn();
  private readonly stream: net.Socket | null;
  /** A stream write is under way: the next turn's write follows its completion. */
  private streamBusy = false;
  private readonly streamWritten = (err?: Error | null) => this.afterStreamWrite(err);

  constructor(
    private readonly fd: number,
    readonly mode: SinkMode = modeOf(fd),
    private readonly maxQueuedChars = MAX_QUEUED_CHARS,
  ) {
    this.stream = mode === 'stream' ? this.openStream() : null;
    process.on('exit', this.onExit);
  }

  private openStream(): net.Socket {
    // fd 1 is process.stdout's own stream (one libuv handle per descriptor, and console output stays in order).
    const s =
      this.fd === 1
        ? (process.stdout as unknown as net.Socket)
        : new net.Socket({ fd: this.fd, readable: false, writable: true });
    // A reader that goes away (EPIPE) ends logging, not the gateway.
    s.on('error', (e) => this.stop(e));
    return s;
  }

  write(line: string): boolean {
    if (
      this.stopped ||
      this.queuedChars + (this.rest?.length ?? 0) + this.inStream() + line.length > this.maxQueuedChars
    ) {
      this.dropped++;
      return false;
    }
    this.queue.push(line);
    this.queuedChars += line.length;
    if (!this.pending) {
      this.pending = true;
      setImmediate(this.turn);
    }
    return true;
  }

  /** Calls back once everything queued so far is written (pino's logger.flush uses this). */
  flush(cb: (err?: Error) => void = () => undefined): void {
    if (this.stopped || (!this.pending && this.queue.length === 0 && this.rest === null && this.inStream() === 0)) cb();
    else this.drained.push(cb);
  }

  /**
   * Write everything queued, synchronously (at exit: there is no event loop left for the asynchronous writes).
   * What a stream already holds (written while its reader lagged) is the stream's: it may be lost at exit.
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
    if (this.stream !== null && this.fd !== 1) this.stream.destroy();
  }

  /** Characters handed to the stream and not yet taken by the reader. */
  private inStream(): number {
    return this.stream === null || !this.streamBusy ? 0 : this.stream.writableLength;
  }

  /** Everything still to write, as bytes: the unsent part of the last write, then the queue. */
  private take(): Buffer {
    const head = this.rest;
    this.rest = null;
    const text = this.takeQueued();
    if (head === null) return Buffer.from(text, 'utf8');
    return text === '' ? head : Buffer.concat([head, Buffer.from(text, 'utf8')]);
  }

  /** The queued lines as one string; the queue is empty afterwards. */
  private takeQueued(): string {
    const text = this.queue.length === 1 ? this.queue[0]! : this.queue.join('');
    this.queue = [];
    this.queuedChars = 0;
    return text;
  }

  /** One turn's write: everything queued since the last one. */
  private writeTurn(): void {
    if (this.stopped) return;
    if (this.rest === null && this.queue.length === 0) {
      this.pending = false;
      if (this.inStream() === 0) this.settle();
      return;
    }
    if (this.stream !== null) {
      // While the reader takes the last write, lines gather in the queue (bounded): one write when it is done.
      if (this.streamBusy) return;
      this.pending = false;
      this.streamBusy = true;
      this.stream.write(this.takeQueued(), this.streamWritten);
      return;
    }
    this.pending = false;
    // An unsent part goes first, alone; otherwise the queue, encoded once into the scratch buffer: its byte count
    // comes with the encoding, where a string written as such needs a second pass to tell a partial write.
    const data = this.rest ?? this.encoded(this.takeQueued());
    this.rest = null;
    try {
      const n = fs.writeSync(this.fd, data);
      if (n < data.length) return this.retry(Buffer.from(data.subarray(n)));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') return this.stop(e as Error);
      // Not ready (a terminal or file set non-blocking by someone else): the same bytes again shortly.
      return this.retry(Buffer.from(data));
    }
    // Lines queued behind an unsent part go in the next turn.
    if (this.queue.length > 0) {
      this.pending = true;
      setImmediate(this.turn);
    } else this.settle();
  }

  /**
   * `text` as UTF-8: a view of the scratch buffer, valid until the next call (what is kept past it is copied). A
   * UTF-16 unit takes at most 3 bytes; a text too long for the scratch gets a buffer of its own.
   */
  private encoded(text: string): Buffer {
    const most = text.length * 3;
    if (most > MAX_SCRATCH_BYTES) return Buffer.from(text, 'utf8');
    if (this.scratch.length < most) this.scratch = Buffer.allocUnsafeSlow(Math.max(most, 2 * this.scratch.length));
    return this.scratch.subarray(0, this.scratch.write(text, 0, 'utf8'));
  }

  private afterStreamWrite(err?: Error | null): void {
    this.streamBusy = false;
    if (err || this.stopped) return; // the stream's 'error' stops the sink
    if (this.pending) setImmediate(this.turn);
    else this.settle();
  }

  private retry(rest: Buffer): void {
    this.rest = rest;
    this.pending = true;
    setTimeout(this.turn, RETRY_MS).unref();
  }

  private settle(): void {
    for (const cb of this.drained.splice(0)) cb();
  }

  /** The destination is gone (EPIPE, a closed descriptor): drop from now on rather than fail the gateway. */
  private stop(err?: Error): void {
    if (this.stopped) return;
    this.stopped = true;
    this.dropped += this.queue.length;
    this.queue = [];
    this.queuedChars = 0;
    this.rest = null;
    this.pending = false;
    for (const cb of this.drained.splice(0)) cb(err);
  }
}

let stdout: LogSink | null = null;

/** The process's one stdout sink (every gateway in the process shares it, and one exit hook). */
export function stdoutSink(): LogSink {
  return (stdout ??= new LogSink(1));
}
