// OpenTelemetry tracing, switched on by the standard OTEL_* variables and exported over OTLP/HTTP as JSON to a real
// receiver: a server span per request carrying the gateway request id, a child span per upstream attempt, the
// client's W3C traceparent as the parent. Off by default: nothing is created.
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.ts';
import { exportedSpans, type ExportedSpan } from '../support/otlp.ts';
import { startReceiver } from '../support/receiver.ts';
import { openaiClient } from '../support/sdk.ts';
import { call, type TaskData } from '../support/vidx.ts';

const collector = await startReceiver();
afterAll(() => collector.close());

const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

describe('tracing on (OTEL_EXPORTER_OTLP_ENDPOINT, http/json)', () => {
  const t = useHarness({
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'tollway-under-test',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=secret%20value',
    },
  });
  let client: OpenAI;
  beforeAll(() => {
    client = openaiClient(t.h, t.token);
  });

  /** Send what has ended and return the spans of one request id: its server span and its attempts. */
  async function spansOf(requestId: string): Promise<{ server: ExportedSpan; attempts: ExportedSpan[] }> {
    await t.h.gw.deps.tracing!.flush();
    const all = exportedSpans(collector).filter((s) => s.attributes['tollway.request_id'] === requestId);
    const servers = all.filter((s) => s.kind === SERVER);
    expect(servers).toHaveLength(1);
    const server = servers[0]!;
    const attempts = all
      .filter((s) => s.kind === CLIENT)
      .sort((a, b) => Number(a.attributes['tollway.attempt']) - Number(b.attributes['tollway.attempt']));
    for (const a of attempts) {
      expect(a.traceId).toBe(server.traceId);
      expect(a.parentSpanId).toBe(server.spanId);
      expect(a.name).toBe('upstream attempt');
    }
    return { server, attempts };
  }

  it('a chat (openai SDK): a server span with the request id, route, model and status, one child span for its upstream attempt, the client traceparent as parent', async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const parentId = 'b7ad6b7169203331';
    const { response } = await client.chat.completions
      .create(
        { model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'hello' }] },
        { headers: { traceparent: `00-${traceId}-${parentId}-01` } },
      )
      .withResponse();
    const rid = response.headers.get('x-gateway-request-id')!;
    const { server, attempts } = await spansOf(rid);
    expect(server.name).toBe('POST /v1/chat/completions');
    expect(server.traceId).toBe(traceId);
    expect(server.parentSpanId).toBe(parentId);
    expect(server.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/chat/completions',
      'http.response.status_code': 200,
      'tollway.model': 'qwx3.7-plus',
    });
    expect(server.resource['service.name']).toBe('tollway-under-test');
    expect(
      attempts.map((a) => [a.attributes['tollway.channel'], a.attributes['tollway.attempt'], a.statusCode]),
    ).toEqual([['sim-dashscope', 1, 0]]);
    // The exporter sent the configured header.
    expect(collector.hits.at(-1)!.headers['x-collector-key']).toBe('secret value');
  });

  it('failover: one child span per attempt, the failed one marked with its error', async () => {
    t.h.sim.faults.add({ kind: 'status', arg: 500, path: '/compatible-mode/v1/chat/completions', times: 1 });
    const { response } = await client.chat.completions
      .create({ model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'again' }] })
      .withResponse();
    const { server, attempts } = await spansOf(response.headers.get('x-gateway-request-id')!);
    expect(server.attributes['http.response.status_code']).toBe(200);
    expect(server.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(server.parentSpanId).toBeUndefined();
    expect(
      attempts.map((a) => [a.attributes['tollway.attempt'], a.statusCode, a.attributes['error.type'] ?? null]),
    ).toEqual([
      [1, ERROR, 'upstream_error'],
      [2, 0, null],
    ]);
  });

  it('a family A creation (served by Fastify, not the text lane) and a refused call are traced too', async () => {
    const c = await call<TaskData>(t.h, t.token, 'POST', '/vidx/v1/videos/text2video', {
      model_name: 'vidx-v2-5',
      prompt: 'a lighthouse',
      duration: '5',
    });
    expect(c.status).toBe(200);
    const a = await spansOf(c.rid!);
    expect(a.server.name).toBe('POST /vidx/v1/videos/text2video');
    expect(a.attempts.map((s) => s.attributes['tollway.channel'])).toEqual(['sim-kling']);
    const bad = await t.h.fetch('/v1/chat/completions', { method: 'POST', token: 'nope', json: {} });
    const b = await spansOf(bad.headers.get('x-gateway-request-id')!);
    expect(b.server.attributes).toMatchObject({ 'http.response.status_code': 401, 'error.type': 'invalid_token' });
    expect(b.attempts).toEqual([]);
  });

  it('the exporter header value, a secret, never reaches a log line', () => {
    expect(t.h.logs.join('')).not.toContain('secret value');
  });
});

describe('tracing off (the default)', () => {
  const t = useHarness();

  it('no tracer and no span: a request state carries no trace', async () => {
    expect(t.h.config.tracing).toBeNull();
    expect(t.h.gw.deps.tracing).toBeNull();
    const before = collector.hits.length;
    expect((await t.h.fetch('/v1/models', { token: t.token })).status).toBe(200);
    expect(collector.hits.length).toBe(before);
  });
});
