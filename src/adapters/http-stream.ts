// An upstream answer read as it arrives, for streams (SSE): a plain undici dispatch handler feeding a small
// chunk queue that the consumer iterates. Compared with undici's `request()` body (a Readable) iterated with
// for-await, it allocates no stream machinery per call and one promise per wait instead of several per chunk.
// Backpressure: past HIGH_WATER queued chunks the upstream socket is paused, and resumed once the consumer has
// caught up. Leaving the iteration early (client gone) aborts the upstream request.
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
          async text() {
            const parts: Buffer[] = [];
            for await (const c of body) parts.push(c);
            return Buffer.concat(parts).toString('utf8');
          },
        });
      },
      onResponseData(c, chunk) {
        deadline?.progressed();
        queue.push(chunk);
        if (queue.length >= HIGH_WATER) c.pause();
        wake();
      },
      onResponseEnd() {
        ended = true;
        detach();
        wake();
      },
      onResponseError(_c, e) {
        failure = e;
        detach();
        if (!started) rejectHead(networkError(e));
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
