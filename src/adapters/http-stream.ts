// An upstream answer read as it arrives, for streams (SSE): a plain undici dispatch handler feeding a small
// chunk queue that the consumer iterates. Compared with undici's `request()` body (a Readable) iterated with
// for-await, it allocates no stream machinery per call and one promise per wait instead of several per chunk.
// Backpressure: past HIGH_WATER queued chunks the upstream socket is paused, and resumed once the consumer has
// caught up. Leaving the iteration early (client gone) aborts the upstream request.
// A consumer can also take the body pushed (`push`): each read is handed over synchronously as it arrives, with
// no promise or queue per chunk; it pauses and resumes the upstream itself.
import { errors as undiciErrors, type Dispatcher } from 'undici';
import { AbortLink } from './abort-link.ts';
import type { Deadline } from './deadlines.ts';

export interface UpstreamStreamResponse {
  statusCode: number;
  headers: Dispatcher.ResponseData['headers'];
  /** The body, chunk by chunk. Iterate it once (or call text()). */
  body: AsyncIterable<Buffer>;
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

/**
 * `networkError` maps a transport failure before the answer started (passed in by http-client.ts, which owns
 * that mapping); a failure mid-body is thrown to the iterating consumer as it is, as a Readable body would.
 */
export function dispatchStream(
  dispatcher: Dispatcher,
  opts: Dispatcher.DispatchOptions,
  signal: AbortSignal | undefined,
  networkError: (e: unknown) => Error,
  /** The call's time limits, when undici's own timers are off for it (see deadlines.ts). */
  deadline?: Deadline,
): Promise<UpstreamStreamResponse> {
  return new Promise<UpstreamStreamResponse>((resolveHead, rejectHead) => {
    let controller: Dispatcher.DispatchController | null = null;
    let started = false;
    const queue: Buffer[] = [];
    let ended = false;
    let failure: unknown = null;
    let waiting: { resolve: (r: IteratorResult<Buffer>) => void; reject: (e: unknown) => void } | null = null;
    let pushed: BodyConsumer | null = null;
    let held = false; // a pushed consumer asked for a pause
    const link = AbortLink.on(signal);
    const abort = () => controller?.abort(new undiciErrors.RequestAbortedError());
    const detach = () => {
      deadline?.done();
      link?.off();
    };
    // A paused body is not idle on the upstream's side: the idle limit restarts when reading resumes.
    const resume = (c: Dispatcher.DispatchController) => {
      deadline?.progressed();
      c.resume();
    };

    const wake = () => {
      const w = waiting;
      if (!w) return;
      if (queue.length > 0) {
        waiting = null;
        w.resolve({ value: queue.shift()!, done: false });
      } else if (failure !== null) {
        waiting = null;
        w.reject(failure);
      } else if (ended) {
        waiting = null;
        w.resolve({ value: undefined, done: true });
      }
    };

    const iterator: AsyncIterator<Buffer> = {
      next() {
        if (queue.length > 0) {
          const value = queue.shift()!;
          if (controller?.paused && queue.length <= HIGH_WATER / 2) resume(controller);
          return Promise.resolve({ value, done: false });
        }
        if (failure !== null) return Promise.reject(failure);
        if (ended) return Promise.resolve({ value: undefined, done: true });
        if (controller?.paused) resume(controller);
        return new Promise((resolve, reject) => {
          waiting = { resolve, reject };
        });
      },
      return() {
        // The consumer stopped early: nothing more will be read, so stop the upstream request.
        if (!ended && failure === null) abort();
        queue.length = 0;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
    const body: AsyncIterable<Buffer> = { [Symbol.asyncIterator]: () => iterator };

    // Hands queued chunks to the pushed consumer until it pauses; then, with none left, the end. A failure is
    // handed over at once, after the chunks before it (a paused consumer is most often one that left). At the end
    // the consumer is let go: the dispatcher may keep this handler past the call, and the consumer reaches the
    // client's whole request.
    let over = false;
    const drain = (consumer: BodyConsumer) => {
      if (over) return;
      if (failure !== null) {
        over = true;
        pushed = null;
        while (queue.length > 0) consumer.data(queue.shift()!);
        return consumer.error(failure);
      }
      while (queue.length > 0 && !held) if (consumer.data(queue.shift()!) === false) hold();
      if (queue.length > 0 || held) return;
      if (ended) {
        over = true;
        pushed = null;
        consumer.end();
      } else if (controller?.paused) resume(controller);
    };
    const hold = () => {
      held = true;
      controller?.pause();
    };
    const flow: BodyFlow = {
      resume() {
        held = false;
        if (pushed !== null) drain(pushed);
      },
      abort() {
        over = true;
        pushed = null;
        queue.length = 0;
        if (!ended && failure === null) abort();
      },
    };
    const push = (consumer: BodyConsumer): BodyFlow => {
      pushed = consumer;
      drain(consumer);
      return flow;
    };

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        deadline?.started(c);
        link?.attach(c);
      },
      onResponseStart(_c, statusCode, headers) {
        deadline?.progressed();
        started = true;
        resolveHead({
          statusCode,
          headers,
          body,
          push,
          async text() {
            const parts: Buffer[] = [];
            for await (const c of body) parts.push(c);
            return Buffer.concat(parts).toString('utf8');
          },
        });
      },
      onResponseData(c, chunk) {
        deadline?.progressed();
        if (pushed !== null && !held && queue.length === 0) {
          if (!over && pushed.data(chunk) === false) hold();
          return;
        }
        queue.push(chunk);
        if (queue.length >= HIGH_WATER) c.pause();
        wake();
      },
      onResponseEnd() {
        ended = true;
        detach();
        if (pushed !== null) drain(pushed);
        else wake();
      },
      onResponseError(_c, e) {
        failure = e;
        detach();
        if (!started) rejectHead(networkError(e));
        else if (pushed !== null) drain(pushed);
        else wake();
      },
    };
    try {
      dispatcher.dispatch(opts, handler);
    } catch (e) {
      detach();
      rejectHead(networkError(e));
    }
  });
}
