// An upstream answer read as it arrives, for streams (SSE): one object per call (StreamCall) is undici's dispatch
// handler, the answer, its body iterator and its flow control at once (what it replaced: docs/performance.md,
// "Streams"). Compared with undici's `request()` body (a Readable) iterated with for-await, it allocates no stream
// machinery per call and one promise per wait instead of several per chunk.
// Backpressure: past HIGH_WATER queued chunks the upstream socket is paused, and resumed once the consumer has
// caught up. Leaving the iteration early (client gone) aborts the upstream request.
// A consumer can also take the body pushed (`push`): each read is handed over synchronously as it arrives, with
// no promise or queue per chunk; it pauses and resumes the upstream itself.
import { errors as undiciErrors, type Dispatcher } from 'undici';
import { AbortLink, type CallSignal } from './abort-link.ts';
import type { Deadline } from './deadlines.ts';
import {
  asDispatchHandler,
  connected,
  parseRawHeaders,
  rawHeader,
  released,
  type ParsedHeaders,
  type RawDispatchHandler,
} from './raw-dispatch.ts';

export interface UpstreamStreamResponse {
  statusCode: number;
  /** All headers (names lower-cased; a repeated header is an array), built on first use. */
  readonly headers: ParsedHeaders;
  /** The first value of one header (`name` lower-case), without building the headers object. */
  header(name: string): string | null;
  /** The body, chunk by chunk. Iterate it once (or call text()). */
  readonly body: AsyncIterable<Buffer>;
  /** The whole body as text (for error answers). */
  text(): Promise<string>;
  /** The body pushed to `consumer` instead (chunks that came before are handed over at once). Once, not with `body`. */
  push(consumer: BodyConsumer): BodyFlow;
}

/** Takes a body pushed chunk by chunk; exactly one of `end` and `error` is called, once. */
export interface BodyConsumer {
  /** A chunk; false holds the upstream back until the flow's `resume()`. */
  data(chunk: Buffer): boolean;
  end(): void;
  error(e: unknown): void;
}

/** The pushed body's flow control. */
export interface BodyFlow {
  /** Read on after a chunk's consumer said false. */
  resume(): void;
  /** Stop the upstream request (the consumer wants no more; no end or error follows). */
  abort(): void;
}

const HIGH_WATER = 32;

type Waiter = { resolve: (r: IteratorResult<Buffer>) => void; reject: (e: unknown) => void };

class StreamCall
  implements RawDispatchHandler, UpstreamStreamResponse, BodyFlow, AsyncIterator<Buffer>, AsyncIterable<Buffer>
{
  statusCode = 0;
  private raw: Buffer[] = [];
  private parsed: ParsedHeaders | null = null;
  /** undici's abort for the request, once it reached a connection. */
  private abortRequest: ((reason?: Error) => void) | null = null;
  /** Restarts a paused body (undici's parser). */
  private resumeBody: (() => void) | null = null;
  /** The next onData answers false: the body is paused until resumeUpstream(). */
  private paused = false;
  private started = false;
  private readonly queue: Buffer[] = [];
  private ended = false;
  private failure: unknown = null;
  private waiting: Waiter | null = null;
  private pushed: BodyConsumer | null = null;
  /** A pushed consumer asked for a pause. */
  private held = false;
  /** The pushed consumer got its end or error, or let go. */
  private over = false;

  constructor(
    private resolveHead: ((r: UpstreamStreamResponse) => void) | null,
    private rejectHead: ((e: unknown) => void) | null,
    private readonly networkError: (e: unknown) => Error,
    private readonly deadline: Deadline | undefined,
    private readonly link: AbortLink | null,
  ) {}

  // ——— undici's handler ———

  onConnect(abort: (reason?: Error) => void): void {
    this.abortRequest = abort;
    connected(abort, this.deadline, this.link);
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    this.deadline?.progressed();
    this.started = true;
    this.statusCode = statusCode;
    this.raw = rawHeaders;
    this.resumeBody = resume;
    const done = this.resolveHead;
    this.resolveHead = null;
    this.rejectHead = null;
    done?.(this);
    return !this.paused;
  }

  onData(chunk: Buffer): boolean {
    this.deadline?.progressed();
    const pushed = this.pushed;
    if (pushed !== null && !this.held && this.queue.length === 0) {
      if (!this.over && pushed.data(chunk) === false) this.hold();
      return !this.paused;
    }
    this.queue.push(chunk);
    if (this.queue.length >= HIGH_WATER) this.paused = true;
    this.wake();
    return !this.paused;
  }

  onComplete(): void {
    this.ended = true;
    this.detach();
    if (this.pushed !== null) this.drain(this.pushed);
    else this.wake();
  }

  onError(e: Error): void {
    this.failure = e;
    this.detach();
    if (!this.started) {
      const reject = this.rejectHead;
      this.resolveHead = null;
      this.rejectHead = null;
      reject?.(this.networkError(e));
    } else if (this.pushed !== null) this.drain(this.pushed);
    else this.wake();
  }

  // ——— the answer ———

  get headers(): ParsedHeaders {
    return (this.parsed ??= parseRawHeaders(this.raw));
  }

  header(name: string): string | null {
    return rawHeader(this.raw, name);
  }

  get body(): AsyncIterable<Buffer> {
    return this;
  }

  [Symbol.asyncIterator](): AsyncIterator<Buffer> {
    return this;
  }

  async text(): Promise<string> {
    const parts: Buffer[] = [];
    for await (const c of this) parts.push(c);
    return Buffer.concat(parts).toString('utf8');
  }

  // ——— the body iterated ———

  next(): Promise<IteratorResult<Buffer>> {
    const queue = this.queue;
    if (queue.length > 0) {
      const value = queue.shift()!;
      if (this.paused && queue.length <= HIGH_WATER / 2) this.resumeUpstream();
      return Promise.resolve({ value, done: false });
    }
    if (this.failure !== null) return Promise.reject(this.failure);
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    if (this.paused) this.resumeUpstream();
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  /** The consumer stopped early: nothing more will be read, so stop the upstream request. */
  return(): Promise<IteratorResult<Buffer>> {
    if (!this.ended && this.failure === null) this.stopRequest();
    this.queue.length = 0;
    return Promise.resolve({ value: undefined, done: true });
  }

  private wake(): void {
    const w = this.waiting;
    if (!w) return;
    if (this.queue.length > 0) {
      this.waiting = null;
      w.resolve({ value: this.queue.shift()!, done: false });
    } else if (this.failure !== null) {
      this.waiting = null;
      w.reject(this.failure);
    } else if (this.ended) {
      this.waiting = null;
      w.resolve({ value: undefined, done: true });
    }
  }

  // ——— the body pushed ———

  push(consumer: BodyConsumer): BodyFlow {
    this.pushed = consumer;
    this.drain(consumer);
    return this;
  }

  resume(): void {
    this.held = false;
    if (this.pushed !== null) this.drain(this.pushed);
  }

  abort(): void {
    this.over = true;
    this.pushed = null;
    this.queue.length = 0;
    if (!this.ended && this.failure === null) this.stopRequest();
  }

  /**
   * Hands queued chunks to the pushed consumer until it pauses; then, with none left, the end. A failure is handed
   * over at once, after the chunks before it (a paused consumer is most often one that left). At the end the
   * consumer is let go: the dispatcher may keep this handler past the call, and the consumer reaches the client's
   * whole request.
   */
  private drain(consumer: BodyConsumer): void {
    if (this.over) return;
    const queue = this.queue;
    if (this.failure !== null) {
      this.over = true;
      this.pushed = null;
      while (queue.length > 0) consumer.data(queue.shift()!);
      return consumer.error(this.failure);
    }
    while (queue.length > 0 && !this.held) if (consumer.data(queue.shift()!) === false) this.hold();
    if (queue.length > 0 || this.held) return;
    if (this.ended) {
      this.over = true;
      this.pushed = null;
      consumer.end();
    } else if (this.paused) this.resumeUpstream();
  }

  private hold(): void {
    this.held = true;
    this.paused = true;
  }

  // ——— the upstream request ———

  /** A paused body is not idle on the upstream's side: the idle limit restarts when reading resumes. */
  private resumeUpstream(): void {
    this.deadline?.progressed();
    this.paused = false;
    this.resumeBody?.();
  }

  private stopRequest(): void {
    this.abortRequest?.(new undiciErrors.RequestAbortedError());
  }

  /** The request settled: its timers and abort listener let go, and so does this call of undici's request. */
  private detach(): void {
    released(this.deadline, this.link);
    this.abortRequest = null;
    this.resumeBody = null;
  }
}

/**
 * `networkError` maps a transport failure before the answer started (passed in by http-client.ts, which owns
 * that mapping); a failure mid-body is thrown to the iterating consumer as it is, as a Readable body would.
 */
export function dispatchStream(
  dispatcher: Dispatcher,
  opts: Dispatcher.DispatchOptions,
  signal: CallSignal | undefined,
  networkError: (e: unknown) => Error,
  /** The call's time limits, when undici's own timers are off for it (see deadlines.ts). */
  deadline?: Deadline,
): Promise<UpstreamStreamResponse> {
  return new Promise<UpstreamStreamResponse>((resolve, reject) => {
    const call = new StreamCall(resolve, reject, networkError, deadline, AbortLink.on(signal));
    try {
      dispatcher.dispatch(opts, asDispatchHandler(call));
    } catch (e) {
      call.onError(e as Error);
    }
  });
}
