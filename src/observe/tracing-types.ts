// What a tracer offers the request path (tracing.ts starts one; otel.ts is the OpenTelemetry one): a type of its own,
// so the lazily loaded SDK module and its loader do not import each other.
import type { IncomingHttpHeaders } from 'node:http';
import type { RequestTrace } from '../core/call.ts';

export interface Tracing {
  /** A server span for a request that just arrived (its `traceparent`, if any, is the parent). */
  begin(requestId: string, method: string, headers: IncomingHttpHeaders): RequestTrace;
  /** Send the spans ended so far (tests; shutdown). */
  flush(): Promise<void>;
  /** Send what is left and stop. */
  shutdown(): Promise<void>;
}
