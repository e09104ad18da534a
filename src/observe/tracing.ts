// Optional OpenTelemetry tracing, configured by the standard OTEL_* variables (config/otel-env.ts). Off by default
// and then free: no OpenTelemetry module is loaded (otel.ts is imported only here, only when tracing is on), each
// request's `state.trace` stays null, and the request path makes one null check where a span would start and one
// where it would end. On: a server span per request carrying the gateway request id, with a child span per
// upstream attempt (core/upstream-call.ts).
import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import type { TracingConfig } from '../config/otel-env.ts';
import type { RequestTrace } from '../core/call.ts';

export interface Tracing {
  /** A server span for a request that just arrived (its `traceparent`, if any, is the parent). */
  begin(requestId: string, method: string, headers: IncomingHttpHeaders): RequestTrace;
  /** Send the spans ended so far (tests; shutdown). */
  flush(): Promise<void>;
  /** Send what is left and stop. */
  shutdown(): Promise<void>;
}

/** The tracer for this configuration, or null (off). */
export async function startTracing(
  config: TracingConfig | null,
  logger: Pick<Logger, 'warn'>,
): Promise<Tracing | null> {
  if (config === null) return null;
  const { otelTracing } = await import('./otel.ts');
  return otelTracing(config, logger);
}
