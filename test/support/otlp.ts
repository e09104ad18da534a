// What an OTLP/HTTP JSON trace export holds, as a collector decodes it (ExportTraceServiceRequest): the spans of
// every request a receiver (receiver.ts) got on /v1/traces, flattened with their attributes as a plain record.
import type { Receiver } from './receiver.ts';

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number };

interface JsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: Array<{ key: string; value: AnyValue }>;
  status?: { code?: number; message?: string };
}

interface ExportRequest {
  resourceSpans: Array<{
    resource?: { attributes?: Array<{ key: string; value: AnyValue }> };
    scopeSpans: Array<{ spans: JsonSpan[] }>;
  }>;
}

export interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP SpanKind: 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  resource: Record<string, string | number | boolean>;
}

const attrValue = (v: AnyValue): string | number | boolean =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.boolValue ?? v.doubleValue ?? '';

function record(attrs: Array<{ key: string; value: AnyValue }> | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((attrs ?? []).map((a) => [a.key, attrValue(a.value)]));
}

/** Every span the receiver got as OTLP/HTTP JSON; throws on a request that is not one. */
export function exportedSpans(r: Receiver): ExportedSpan[] {
  const out: ExportedSpan[] = [];
  for (const hit of r.hits) {
    if (hit.url !== '/v1/traces') throw new Error(`an export to ${hit.url}, not /v1/traces`);
    if (!String(hit.headers['content-type']).startsWith('application/json'))
      throw new Error(`an export as ${hit.headers['content-type']}, not JSON`);
    const req = JSON.parse(hit.body) as ExportRequest;
    for (const rs of req.resourceSpans) {
      const resource = record(rs.resource?.attributes);
      for (const ss of rs.scopeSpans) {
        for (const s of ss.spans) {
          out.push({
            traceId: s.traceId,
            spanId: s.spanId,
            parentSpanId: s.parentSpanId || undefined,
            name: s.name,
            kind: s.kind,
            attributes: record(s.attributes),
            statusCode: s.status?.code ?? 0,
            resource,
          });
        }
      }
    }
  }
  return out;
}
