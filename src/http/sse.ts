// The one place that writes text/event-stream to a client: headers (request id included), backpressure
// (a `write()` that returns false waits for 'drain'), client disconnect (aborts the upstream request),
// an upstream break (a family-specific error event, then the end — never a hang), and exactly one
// end-of-stream callback (metering) that runs before the response is finished.
import type { ServerResponse } from 'node:http';
import type { ErrorFrame } from '../adapters/types.ts';
import { GatewayError, isGatewayError } from '../errors/gateway-error.ts';
import { renderFamilyB } from '../errors/render.ts';
import type { Exchange } from './exchange.ts';
import { markFirstByte, REQUEST_ID_HEADERS } from './front.ts';

export type StreamOutcome = 'complete' | 'client-abort' | 'upstream-error';

/**
 * Watches the client connection from before the upstream call: `signal` aborts when the client leaves,
 * so even a wait for upstream headers is cut short.
 */
export class ClientWatch {
  readonly controller = new AbortController();
  private readonly onClose = () => {
    if (!this.res.writableFinished) this.controller.abort();
  };
  constructor(private readonly res: ServerResponse) {
    res.on('close', this.onClose);
  }
  get signal(): AbortSignal {
    return this.controller.signal;
  }
  get gone(): boolean {
    return this.controller.signal.aborted;
  }
  dispose(): void {
    this.res.off('close', this.onClose);
  }
}

export interface SseOptions {
  frames: AsyncIterable<string>;
  watch: ClientWatch;
  errorFrame: ErrorFrame;
  /** Called exactly once, before the response ends (or after the client left). */
  onEnd: (outcome: StreamOutcome) => void;
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
    // Frames produced from one upstream chunk arrive in one microtask run: they are joined and written once on
    // the next tick (one string, one syscall) instead of one write per frame.
    let pending = '';
    let full = false;
    flush = () => {
      if (pending === '' || watch.gone) return;
      const out = pending;
      pending = '';
      markFirstByte(req.state);
      if (!res.write(out)) full = true;
    };
    for await (const frame of o.frames) {
      if (watch.gone) break;
      if (pending === '') process.nextTick(flush);
      pending += frame;
      if (full) {
        full = false;
        await waitDrain(res, watch);
      }
    }
    flush();
    if (watch.gone) outcome = 'client-abort';
  } catch (e) {
    if (watch.gone) outcome = 'client-abort';
    else {
      outcome = 'upstream-error';
      const ge = isGatewayError(e) ? e : new GatewayError('upstream_error', 'The stream failed', { cause: e });
      req.state.errorCode = ge.code;
      if (ge.upstreamRequestId) req.state.upstreamRequestId = ge.upstreamRequestId;
      errorText = o.errorFrame(ge, renderFamilyB(ge, req.id).error);
    }
  } finally {
    if (watch.gone && outcome === 'complete') outcome = 'client-abort';
    try {
      o.onEnd(outcome);
    } catch (e) {
      req.log.error({ err: String(e) }, 'stream end handler failed');
    }
    watch.dispose();
    if (outcome === 'client-abort') {
      req.state.errorCode ??= 'client_closed';
      // The lane records the request on the response's 'close' (which a cut response emits too).
      res.destroy();
    } else {
      flush();
      if (errorText) res.write(errorText);
      res.end();
    }
  }
}
