// One undici Pool per upstream origin (keep-alive), with connect/header/body timeouts.
// Network failures become GatewayErrors (network-errors.ts), so adapters only deal with HTTP answers.
import { Pool, type Dispatcher } from 'undici';
import { AbortLink, type CallSignal } from './abort-link.ts';
import { DeadlineSweep } from './deadlines.ts';
import { dispatchStream, type UpstreamStreamResponse } from './http-stream.ts';
import { networkError } from './network-errors.ts';
import { asDispatchHandler } from './raw-dispatch.ts';
import { TextCall, type UpstreamTextResponse } from './text-call.ts';

export interface UpstreamTimeouts {
  connectMs: number;
  /** Time to response headers (first byte). */
  headersMs: number;
  /** Max idle time between body chunks (streams). */
  bodyIdleMs: number;
}

export const DEFAULT_TIMEOUTS: UpstreamTimeouts = { connectMs: 5_000, headersMs: 120_000, bodyIdleMs: 60_000 };

export interface UpstreamRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** Absolute base URL of the channel (scheme://host[:port][/prefix]). */
  baseUrl: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer | null;
  signal?: CallSignal;
  timeouts?: Partial<UpstreamTimeouts>;
}

export type UpstreamResponse = Dispatcher.ResponseData;

export class UpstreamClient {
  private readonly pools = new Map<string, Pool>();
  /** The time limits of requestText/requestStream calls (undici's own per-request timers are off for them). */
  private readonly deadlines = new DeadlineSweep();

  constructor(private readonly defaults: UpstreamTimeouts = DEFAULT_TIMEOUTS) {}

  private pool(origin: string, t: UpstreamTimeouts): Pool {
    let p = this.pools.get(origin);
    if (!p) {
      p = new Pool(origin, {
        connections: 256,
        pipelining: 1,
        keepAliveTimeout: 30_000,
        connect: { timeout: t.connectMs },
        headersTimeout: t.headersMs,
        bodyTimeout: t.bodyIdleMs,
      });
      this.pools.set(origin, p);
    }
    return p;
  }

  /** Channel base URLs parsed once, not per request. */
  private readonly bases = new Map<string, { origin: string; prefix: string }>();

  private base(baseUrl: string): { origin: string; prefix: string } {
    let b = this.bases.get(baseUrl);
    if (!b) {
      const u = new URL(baseUrl);
      b = { origin: u.origin, prefix: u.pathname.replace(/\/+$/, '') };
      if (this.bases.size >= 1000) this.bases.clear();
      this.bases.set(baseUrl, b);
    }
    return b;
  }

  private timeouts(r: UpstreamRequest): UpstreamTimeouts {
    // A call may ask for tighter timeouts than the configured ones, never for looser ones (config is the ceiling).
    const d = this.defaults;
    const o = r.timeouts;
    if (!o) return d;
    return {
      connectMs: Math.min(d.connectMs, o.connectMs ?? d.connectMs),
      headersMs: Math.min(d.headersMs, o.headersMs ?? d.headersMs),
      bodyIdleMs: Math.min(d.bodyIdleMs, o.bodyIdleMs ?? d.bodyIdleMs),
    };
  }

  async request(r: UpstreamRequest): Promise<UpstreamResponse> {
    const t = this.timeouts(r);
    const base = this.base(r.baseUrl);
    try {
      return await this.pool(base.origin, t).request({
        method: r.method,
        path: base.prefix + r.path,
        headers: r.headers ?? {},
        body: r.body ?? null,
        signal: r.signal ?? null,
        headersTimeout: t.headersMs,
        bodyTimeout: t.bodyIdleMs,
      });
    } catch (e) {
      throw networkError(e);
    }
  }

  /**
   * The same call as `request`, for answers read whole: the body is collected into one string by a plain
   * dispatch handler — no Readable stream and no async resource per call.
   * Transport failures, timeouts and aborts map to the same GatewayErrors as `request` + reading the body.
   * The handler speaks undici's original callbacks (raw-dispatch.ts).
   */
  requestText(r: UpstreamRequest): Promise<UpstreamTextResponse> {
    const t = this.timeouts(r);
    const base = this.base(r.baseUrl);
    return new Promise<UpstreamTextResponse>((resolve, reject) => {
      const call = new TextCall(
        resolve,
        reject,
        this.deadlines.deadline(t.headersMs, t.bodyIdleMs),
        AbortLink.on(r.signal),
      );
      try {
        // undici's timers off (0): the deadline sweep applies the same limits.
        this.pool(base.origin, t).dispatch(
          {
            method: r.method,
            path: base.prefix + r.path,
            headers: r.headers ?? {},
            body: r.body ?? null,
            headersTimeout: 0,
            bodyTimeout: 0,
          },
          asDispatchHandler(call),
        );
      } catch (e) {
        call.onError(e as Error);
      }
    });
  }

  /** The same call as `request`, for streams: the body is iterated as it arrives (see http-stream.ts). */
  requestStream(r: UpstreamRequest): Promise<UpstreamStreamResponse> {
    const t = this.timeouts(r);
    const base = this.base(r.baseUrl);
    return dispatchStream(
      this.pool(base.origin, t),
      // undici's timers off (0): the deadline applies the same limits.
      {
        method: r.method,
        path: base.prefix + r.path,
        headers: r.headers ?? {},
        body: r.body ?? null,
        headersTimeout: 0,
        bodyTimeout: 0,
      },
      r.signal,
      networkError,
      this.deadlines.deadline(t.headersMs, t.bodyIdleMs),
    );
  }

  async close(): Promise<void> {
    this.deadlines.stop();
    await Promise.all([...this.pools.values()].map((p) => p.close().catch(() => undefined)));
    this.pools.clear();
  }
}
