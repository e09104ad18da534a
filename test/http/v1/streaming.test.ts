// Streams done right: a client that leaves aborts the upstream call and is metered once; an upstream cut mid-stream
// ends the client's stream with an error, on every API. Upstream error answers: upstream-errors.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { streamStats } from '../../../simulator/dashscope/compat-chat.ts';
import { useHarness } from '../../support/harness.ts';
import { anthropicClient, openaiClient } from '../../support/sdk.ts';
import { sseEvents } from '../../support/sse.ts';
import { ledgerRows, requestLogRows } from '../../support/store-rows.ts';
import type { BErr } from '../../support/error-shapes.ts';

const t = useHarness();
afterEach(() => t.h.sim.faults.clear());

const post = (path: string, json: unknown, init: RequestInit = {}) =>
  t.h.fetch(path, { method: 'POST', token: t.token, json, ...init });

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
}

describe('streaming done right', () => {
  it('client abort mid-stream aborts the upstream request and is metered exactly once', async () => {
    const stats = streamStats(t.h.sim.ctx);
    const abortedBefore = stats.aborted;
    const ac = new AbortController();
    const r = await post(
      '/v1/chat/completions',
      { model: 'qwx3.7-plus', stream: true, messages: [{ role: 'user', content: 'a slow one sim-fault:trickle:150' }] },
      { signal: ac.signal },
    );
    expect(r.status).toBe(200);
    const rid = r.headers.get('x-gateway-request-id')!;
    const reader = r.body!.getReader();
    const dec = new TextDecoder();
    let seen = '';
    while (!seen.includes('"content":"This')) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += dec.decode(value);
    }
    ac.abort();
    await reader.cancel().catch(() => undefined);
    await until(() => stats.aborted > abortedBefore);
    expect(stats.aborted).toBe(abortedBefore + 1);
    const rows = await ledgerRows(t.h, rid);
    expect(rows).toHaveLength(1);
    const q = JSON.parse(rows[0]!.quantities) as { input_tokens: number; output_tokens: number };
    expect(q.input_tokens).toBeGreaterThan(0);
    expect(q.output_tokens).toBeGreaterThan(0);
    // still exactly one after everything settled
    await new Promise((res) => setTimeout(res, 100));
    expect(await ledgerRows(t.h, rid)).toHaveLength(1);
    const logRows = await requestLogRows(t.h, rid);
    expect(logRows).toHaveLength(1);
    expect(logRows[0]!.error_code).toBe('client_closed');
  });

  const abortCases: Array<[string, string, string, Record<string, unknown>]> = [
    [
      'messages',
      '/v1/messages',
      '/apps/anthropic/v1/messages',
      {
        model: 'qwx3.7-plus',
        max_tokens: 100,
        stream: true,
        messages: [{ role: 'user', content: 'slow sim-fault:trickle:150' }],
      },
    ],
    [
      'responses',
      '/v1/responses',
      '/compatible-mode/v1/responses',
      { model: 'qwx3.7-plus', stream: true, input: 'slow sim-fault:trickle:150' },
    ],
    [
      'chat with an image (native multimodal)',
      '/v1/chat/completions',
      'multimodal-generation',
      {
        model: 'qwx3.7-plus',
        stream: true,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'slow sim-fault:trickle:150' },
              { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
            ],
          },
        ],
      },
    ],
  ];
  for (const [name, path, upstreamPath, json] of abortCases) {
    it(`${name}: a client abort mid-stream aborts the upstream request and is metered exactly once`, async () => {
      const ac = new AbortController();
      const before = t.h.sim.requestsTo(upstreamPath).length;
      const r = await post(path, json, { signal: ac.signal });
      expect(r.status).toBe(200);
      const rid = r.headers.get('x-gateway-request-id')!;
      const reader = r.body!.getReader();
      let bytes = 0;
      while (bytes < 200) {
        const { value, done } = await reader.read();
        if (done) break;
        bytes += value.length;
      }
      ac.abort();
      await reader.cancel().catch(() => undefined);
      const sent = () => t.h.sim.requestsTo(upstreamPath).slice(before);
      await until(() => sent()[0]?.aborted === true);
      expect(sent()).toHaveLength(1);
      expect(sent()[0]!.aborted).toBe(true);
      const rows = await ledgerRows(t.h, rid);
      expect(rows).toHaveLength(1);
      expect((JSON.parse(rows[0]!.quantities) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
      await new Promise((res) => setTimeout(res, 100));
      expect(await ledgerRows(t.h, rid)).toHaveLength(1);
      const log = await requestLogRows(t.h, rid);
      expect(log.map((l) => l.error_code)).toEqual(['client_closed']);
    });
  }

  it('upstream cut mid-stream (chat): the client gets an error event, then the end; metered once', async () => {
    const r = await post('/v1/chat/completions', {
      model: 'qwx3.7-plus',
      stream: true,
      messages: [{ role: 'user', content: 'cut me sim-fault:cut' }],
    });
    expect(r.status).toBe(200);
    const rid = r.headers.get('x-gateway-request-id')!;
    const events = sseEvents(await r.text());
    const last = JSON.parse(events.at(-1)!.data) as BErr;
    expect(last.error.code).toBe('upstream_error');
    expect(last.error.request_id).toBe(rid);
    expect(events.some((e) => e.data === '[DONE]')).toBe(false);
    expect(events.length).toBeGreaterThan(1);
    const rows = await ledgerRows(t.h, rid);
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0]!.quantities).output_tokens).toBeGreaterThan(0);
  });

  it('upstream cut: the openai SDK raises instead of hanging', async () => {
    const client = openaiClient(t.h, t.token);
    const stream = await client.chat.completions.create({
      model: 'qwx3.7-plus',
      stream: true,
      messages: [{ role: 'user', content: 'sim-fault:cut' }],
    });
    await expect(
      (async () => {
        for await (const _c of stream) void _c;
      })(),
    ).rejects.toThrow(/upstream stream broke off/);
  });

  it('upstream cut (messages): an `event: error` then the end; anthropic SDK raises; metered once', async () => {
    const r = await post('/v1/messages', {
      model: 'qwx3.7-plus',
      max_tokens: 64,
      stream: true,
      messages: [{ role: 'user', content: 'sim-fault:cut please' }],
    });
    const rid = r.headers.get('x-gateway-request-id')!;
    const events = sseEvents(await r.text());
    expect(events.at(-1)!.event).toBe('error');
    expect((JSON.parse(events.at(-1)!.data) as { type: string }).type).toBe('error');
    const rows = await ledgerRows(t.h, rid);
    expect(rows).toHaveLength(1);
    // message_start's output count is a placeholder (1): the cut stream is charged the estimate of what it delivered.
    const delivered = events
      .filter((e) => e.event === 'content_block_delta')
      .map((e) => (JSON.parse(e.data) as { delta: { text?: string } }).delta.text ?? '')
      .join('');
    expect(delivered.length).toBeGreaterThan(8);
    const q = JSON.parse(rows[0]!.quantities) as { output_tokens: number; estimated?: boolean };
    expect(q.output_tokens).toBe(Math.ceil(delivered.length / 4));
    const client = anthropicClient(t.h, t.token);
    await expect(
      client.messages
        .stream({ model: 'qwx3.7-plus', max_tokens: 64, messages: [{ role: 'user', content: 'sim-fault:cut' }] })
        .finalMessage(),
    ).rejects.toThrow();
  });

  it('upstream cut (responses): an `event: error`; metered once', async () => {
    const r = await post('/v1/responses', {
      model: 'qwx3.7-plus',
      stream: true,
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'sim-fault:cut x' }] }],
    });
    const rid = r.headers.get('x-gateway-request-id')!;
    const events = sseEvents(await r.text());
    expect(events.at(-1)!.event).toBe('error');
    expect(events.some((e) => e.event === 'response.completed')).toBe(false);
    expect(await ledgerRows(t.h, rid)).toHaveLength(1);
  });

  it('upstream cut on the native multimodal stream ends with an error event', async () => {
    const r = await post('/v1/chat/completions', {
      model: 'qwx3.7-plus',
      stream: true,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'sim-fault:cut look' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
          ],
        },
      ],
    });
    const events = sseEvents(await r.text());
    expect((JSON.parse(events.at(-1)!.data) as BErr).error.code).toBe('upstream_error');
  });
});
