// The OpenTelemetry SDK behind tracing.ts, loaded only when tracing is on: a tracer provider with a batch span
// processor and the OTLP/HTTP exporter (JSON). Spans are parented explicitly (the request's span is kept on its
// state), so no context manager and no async-hooks instrumentation run on the request path.
import type { IncomingHttpHeaders } from 'node:http';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type TextMapGetter,
  type Tracer,
} from '@opentelemetry/api';
import { setGlobalErrorHandler, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
} from '@opentelemetry/sdk-trace';
import type { Logger } from 'pino';
import type { TracingConfig } from '../config/otel-env.ts';
import type { RequestState, RequestTrace } from '../core/call.ts';
import { isGatewayError } from '../errors/gateway-error.ts';
import { UNMATCHED_ROUTE } from './metrics.ts';
import type { Tracing } from './tracing-types.ts';

const VERSION = '0.1.0';

function samplerOf(c: TracingConfig): Sampler {
  const ratio = new TraceIdRatioBasedSampler(c.ratio);
  switch (c.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

const headerGetter: TextMapGetter<IncomingHttpHeaders> = {
  keys: (h) => Object.keys(h),
  get: (h, key) => h[key],
};

class RequestSpan implements RequestTrace {
  private attempts = 0;

  constructor(
    private readonly tracer: Tracer,
    private readonly span: Span,
    private readonly ctx: Context,
    private readonly method: string,
    private readonly requestId: string,
  ) {}

  async attempt<T>(channel: { readonly id: string; readonly name: string }, run: () => Promise<T>): Promise<T> {
    const s = this.tracer.startSpan(
      'upstream attempt',
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'tollway.request_id': this.requestId,
          'tollway.channel': channel.name,
          'tollway.channel_id': channel.id,
          'tollway.attempt': ++this.attempts,
        },
      },
      this.ctx,
    );
    try {
      const r = await run();
      s.end();
      return r;
    } catch (e) {
      const code = isGatewayError(e) ? e.code : 'internal_error';
      s.setAttribute('error.type', code);
      s.setStatus({ code: SpanStatusCode.ERROR, message: code });
      s.end();
      throw e;
    }
  }

  /** The capacity step: how long the call waited for its upstream account x model, and why (capacity/). */
  private capacityStep(w: NonNullable<RequestState['capacityWait']>): void {
    const attributes = {
      'tollway.request_id': this.requestId,
      'tollway.capacity.wait_ms': w.ms,
      'tollway.capacity.reason': w.reason,
      'tollway.capacity.queue': w.queue,
    };
    this.tracer
      .startSpan('capacity', { kind: SpanKind.INTERNAL, startTime: w.at - w.ms, attributes }, this.ctx)
      .end(w.at);
  }

  end(route: string, status: number, state: RequestState): void {
    const s = this.span;
    if (route !== UNMATCHED_ROUTE) {
      s.updateName(`${this.method} ${route}`);
      s.setAttribute('http.route', route);
    }
    s.setAttribute('http.response.status_code', status);
    if (state.model !== null) s.setAttribute('tollway.model', state.model);
    if (state.principal !== null) s.setAttribute('tollway.token_id', state.principal.tokenId);
    if (state.upstreamRequestId !== null) s.setAttribute('tollway.upstream_request_id', state.upstreamRequestId);
    if (state.errorCode !== null) s.setAttribute('error.type', state.errorCode);
    if (state.capacityWait !== null) this.capacityStep(state.capacityWait);
    // A server span is an error when the server failed (5xx), not when the client asked wrongly (4xx).
    if (status >= 500)
      s.setStatus({ code: SpanStatusCode.ERROR, ...(state.errorCode !== null ? { message: state.errorCode } : {}) });
    s.end();
  }
}

export function otelTracing(c: TracingConfig, logger: Pick<Logger, 'warn'>): Tracing {
  // Export failures (a collector that is down) are logged, never thrown into a request.
  setGlobalErrorHandler((e) => logger.warn({ err: String(e) }, 'tracing: span export failed'));
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ ...c.resourceAttributes, 'service.name': c.serviceName }),
    sampler: samplerOf(c),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: c.url, headers: c.headers }) })],
  });
  const tracer = provider.getTracer('tollway', VERSION);
  const propagator = new W3CTraceContextPropagator();
  return {
    begin(requestId, method, headers) {
      const parent =
        headers.traceparent === undefined ? ROOT_CONTEXT : propagator.extract(ROOT_CONTEXT, headers, headerGetter);
      const span = tracer.startSpan(
        method,
        { kind: SpanKind.SERVER, attributes: { 'tollway.request_id': requestId, 'http.request.method': method } },
        parent,
      );
      return new RequestSpan(tracer, span, trace.setSpan(parent, span), method, requestId);
    },
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
