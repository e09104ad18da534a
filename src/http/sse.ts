// The one place that writes text/event-stream to a client: headers (request id included), backpressure
// (a `write()` that returns false waits for 'drain'), client disconnect (aborts the upstream request),
// an upstream break (a family-specific error event, then the end — never a hang), and exactly one
// end-of-stream callback (metering) that runs before the response is finished.
import type { ServerResponse } from 'node:http';
import type { CallSignal } from '../adapters/abort-link.ts';
import type { ErrorFrame, FrameFlow, FrameSink, StreamResult } from '../adapters/types.ts';
import { GatewayError, isGatewayError } from '../errors/gateway-error.ts';
import { renderFamilyB } from '../errors/render.ts';
import type { Exchange } from './exchange.ts';
import type { RequestState } from './request-state.ts';
import { markFirstByte, REQUEST_ID_HEADERS } from './front/rules.ts';

export type StreamOutcome = 'complete' | 'client-abort' | 'upstream-error';

/**
 * Watches the client connection from before the upstream call, and is the call's abort signal: it aborts when the
 * client leaves, so even a wait for upstream headers is cut short. A signal of its own rather than an
 * AbortController's: that is an EventTarget with a listener map per streamed request, all of it alive while the
 * stream runs. A client that stays connected but takes no byte for `stallMs` (its socket full) is cut the same way:
 * it would otherwise hold its upstream call, its concurrency slot and the frames waiting for it indefinitely.
 */
export class ClientWatch implements CallSignal {
  aborted = false;
  private listeners: Array<() => void> | null = null;
  private readonly onClose = () => {
    if (!this.res.writableFinished) this.abort();
  };
  /** Armed while a write waits for 'drain' (a timer only then, none per write). */
  private stall: NodeJS.Timeout | null = null;
  private readonly onDrain = () => {
    if (this.stall !== null) clearTimeout(this.stall);
    this.stall = null;
  };
  private readonly onStall = () => {
    this.stall = null;
    this.res.destroy();
  };
  constructor(
    private readonly res: ServerResponse,
    private readonly stallMs: number,
  ) {
    res.on('close', this.onClose);
  }
  /** A write was not taken whole: the client has `stallMs` to take it (its 'drain'), or it is cut. */
  stalled(): void {
    if (this.stall !== null || this.aborted) return;
    this.stall = setTimeout(this.onStall, this.stallMs);
    this.stall.unref();
    this.res.once('drain', this.onDrain);
  }
  get signal(): CallSignal {
    return this;
  }
  get gone(): boolean {
    return this.aborted;
  }
  /** Listeners run once, at the abort; one added after it is not called (as on an AbortSignal). */
  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted) return;
    (this.listeners ??= []).push(listener);
  }
  removeEventListener(_type: 'abort', listener: () => void): void {
    const l = this.listeners;
    const i = l === null ? -1 : l.indexOf(listener);
    if (i >= 0) l!.splice(i, 1);
  }
  private abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const l = this.listeners;
    this.listeners = null;
    if (l !== null) for (const f of l) f();
  }
  dispose(): void {
    this.res.off('close', this.onClose);
    if (this.stall !== null) {
      clearTimeout(this.stall);
      this.stall = null;
      this.res.off('drain', this.onDrain);
    }
  }
  /**
   * The stream's last bytes are written (after dispose): a client that takes them within `stallMs` finishes the
   * response; one that does not is cut, so the request's record — and the slot it holds — does not wait for TCP.
   */
  ended(): void {
    const res = this.res;
    if (res.writableFinished || res.destroyed) return;
    const t = setTimeout(() => res.destroy(), this.stallMs);
    t.unref();
    res.once('close', () => clearTimeout(t));
  }
}

export interface SseOptions {
  /** The frames: pushed (`pipe`) where the stream offers it, else iterated (`frames`). */
  stream: Pick<StreamResult, 'frames' | 'pipe'>;
  watch: ClientWatch;
  errorFrame: ErrorFrame;
  /**
   * Called exactly once, before the response ends (or after the client left). A promise it returns holds the end of
   * the response until it settles: a charge queue that is behind (Meter.chargesBehind) holds back streams' ends too.
   */
  onEnd: (outcome: StreamOutcome) => void | Promise<void>;
}

function waitDrain(res: ServerResponse, watch: ClientWatch): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      watch.signal.removeEventListener('abort', done);
      resolve();
    };
    res.on('drain', done);
    watch.signal.addEventListener('abort', done, { once: true });
  });
}

export async function sendSse(req: Exchange, o: SseOptions): Promise<void> {
  const res = req.res;
  const { watch } = o;
  let outcome: StreamOutcome = 'complete';
  let errorText: string | null = null;
  let flush = () => {};
  try {
    if (watch.gone) throw new GatewayError('upstream_error', 'client left before the stream started');
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      [REQUEST_ID_HEADERS[0]]: req.id,
      [REQUEST_ID_HEADERS[1]]: req.id,
      [REQUEST_ID_HEADERS[2]]: req.id,
    });
    if (o.stream.pipe) {
      const broke = await piped(res, req.state, watch, o.stream.pipe.bind(o.stream));
      if (broke !== undefined) throw broke;
    } else {
      // Frames produced from one upstream chunk arrive in one microtask run: they are joined and written once on
      // the next tick (one string, one syscall) instead of one write per frame.
      let pending = '';
      let full = false;
      flush = () => {
        if (pending === '' || watch.gone) return;
        const out = pending;
        pending = '';
        markFirstByte(req.state);
        if (!res.write(out)) {
          full = true;
          watch.stalled();
        }
      };
      for await (const frame of o.stream.frames) {
        if (watch.gone) break;
        if (pending === '') process.nextTick(flush);
        pending += frame;
        if (full) {
          full = false;
          await waitDrain(res, watch);
        }
      }
      flush();
    }
    if (watch.gone) outcome = 'client-abort';
  } catch (e) {
    if (watch.gone) outcome = 'client-abort';
    else {
      outcome = 'upstream-error';
      const ge = isGatewayError(e) ? e : new GatewayError('upstream_error', 'The stream failed', { cause: e });
      req.noteError(ge);
      errorText = o.errorFrame(ge, renderFamilyB(ge, req.id).error);
    }
  } finally {
    if (watch.gone && outcome === 'complete') outcome = 'client-abort';
    let ending: Promise<void> | undefined;
    try {
      ending = o.onEnd(outcome) ?? undefined;
    } catch (e) {
      req.log.error({ err: String(e) }, 'stream end handler failed');
    }
    watch.dispose();
    if (outcome === 'client-abort') {
      // The request's life marks the client gone and records it on the response's 'close' (which a cut response emits
      // too).
      res.destroy();
    } else {
      flush();
      if (errorText) res.write(errorText);
      if (ending) await ending.catch((e: unknown) => req.log.error({ err: String(e) }, 'stream end handler failed'));
      res.end();
      watch.ended();
    }
  }
}

/**
 * A pushed stream written to the client: the frames of one upstream read (or of several in one tick) are joined
 * and written once on the next tick, as the byte string they are (latin1: no UTF-8 length scan and encode). A write
 * the socket did not take whole holds the source back until 'drain'. One object per stream (the sink, its flush and
 * its drain listener), not a scope of closures.
 */
class SocketSink implements FrameSink {
  private pending = '';
  /** The last write was not taken whole: waiting for 'drain'. */
  private full = false;
  /** The source was told to hold back. */
  private held = false;
  flow: FrameFlow | null = null;
  private readonly flushLater = () => this.flush();
  private readonly drained = () => {
    this.full = false;
    if (this.held) {
      this.held = false;
      this.flow?.resume();
    }
  };

  constructor(
    private readonly res: ServerResponse,
    private readonly state: RequestState,
    private readonly watch: ClientWatch,
    private readonly done: (broke: unknown) => void,
  ) {}

  write(frames: string): boolean {
    if (this.pending === '') process.nextTick(this.flushLater);
    this.pending += frames;
    if (!this.full) return true;
    this.held = true;
    return false;
  }

  end(error?: unknown): void {
    this.flush();
    this.res.off('drain', this.drained);
    this.done(error);
  }

  private flush(): void {
    if (this.pending === '') return;
    const out = this.pending;
    this.pending = '';
    if (this.watch.gone) return;
    markFirstByte(this.state);
    if (!this.res.write(out, 'latin1') && !this.full) {
      this.full = true;
      this.res.once('drain', this.drained);
      this.watch.stalled();
    }
  }
}

/**
 * Resolves once the stream ended: undefined when it completed, else why it broke. A client that leaves aborts the
 * upstream request through the watch's signal, which ends the stream too.
 */
function piped(
  res: ServerResponse,
  state: RequestState,
  watch: ClientWatch,
  pipe: (sink: FrameSink) => FrameFlow,
): Promise<unknown> {
  return new Promise((resolve) => {
    const sink = new SocketSink(res, state, watch, resolve);
    sink.flow = pipe(sink);
  });
}
