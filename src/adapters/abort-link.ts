// The abort listener an upstream call puts on its caller's signal. It holds only the call's controller, and lets
// go of it when the call settles. A closure from the call's own scope would hold that scope's shared context —
// chunk queue, handler, iterator: the whole call — for as long as anything still reaches the listener (a signal
// outlives its call when failover retries with it, or when the caller keeps it). deadlines.ts lets go of its
// calls for the same reason.
import { errors as undiciErrors } from 'undici';

/** What an upstream call can be stopped through: undici's dispatch controller, or its original abort callback. */
export interface Abortable {
  abort(reason: Error): void;
}

/**
 * What a caller stops an upstream call through: an AbortSignal, or the lighter signal a stream's client watch is
 * (http/sse.ts), which costs no AbortController, EventTarget and listener map per streamed request.
 */
export interface CallSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export class AbortLink {
  private controller: Abortable | null = null;
  private readonly listener = (): void => this.controller?.abort(new undiciErrors.RequestAbortedError());

  private constructor(private signal: CallSignal | null) {
    signal?.addEventListener('abort', this.listener, { once: true });
  }

  /** A link listening on `signal`; none without a signal. */
  static on(signal: CallSignal | null | undefined): AbortLink | null {
    return signal ? new AbortLink(signal) : null;
  }

  /** The call reached a connection: a signal already aborted aborts it now, a later abort when it comes. */
  attach(c: Abortable): void {
    this.controller = c;
    if (this.signal?.aborted) c.abort(new undiciErrors.RequestAbortedError());
  }

  /** The call settled: stop listening and drop the controller. */
  off(): void {
    this.controller = null;
    this.signal?.removeEventListener('abort', this.listener);
    this.signal = null;
  }
}
