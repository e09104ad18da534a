// Optional OpenTelemetry tracing, configured by the standard OTEL_* variables (config/otel-env.ts). Off by default
// and then free: no OpenTelemetry module is loaded (otel.ts is imported only here, only when tracing is on), each
// request's `state.trace` stays null, and the request path makes one null check where a span would start and one
// where it would end. On: a server span per request carrying the gateway request id, with a child span per
// upstream attempt (core/upstream-call.ts).
import type { Logger } from 'pino';
import type { TracingConfig } from '../config/otel-env.ts';
import type { Tracing } from './tracing-types.ts';

export type { Tracing } from './tracing-types.ts';

/** The tracer for this configuration, or null (off). */
export async function startTracing(
  config: TracingConfig | null,
  logger: Pick<Logger, 'warn'>,
): Promise<Tracing | null> {
  if (config === null) return null;
  const { otelTracing } = await import('./otel.ts');
  return otelTracing(config, logger);
}
