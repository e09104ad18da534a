import type Anthropic from '@anthropic-ai/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SIM_KEYS } from '../../../simulator/index.ts';
import { GatewayError } from '../../../src/errors/gateway-error.ts';
import { renderFamilyB } from '../../../src/errors/render.ts';
import { messagesErrorFrame } from '../../../src/http/routes/v1/messages.ts';
import { useHarness } from '../../support/harness.ts';
import { anthropicClient } from '../../support/sdk.ts';
import { sseEvents } from '../../support/sse.ts';
import { ledgerRows } from '../../support/store-rows.ts';
import type { BErr } from '../../support/error-shapes.ts';

const t = useHarness();
let client: Anthropic;
beforeAll(() => {
  client = anthropicClient(t.h, t.token);
});

const UPSTREAM = '/apps/anthropic/v1/messages';

describe('POST /v1/messages (@anthropic-ai/sdk)', () => {
  it('non-streaming: a messages object with the four usage fields; x-api-key accepted; headers and fields passed through', async () => {
    const before = t.h.sim.requestsTo(UPSTREAM).length;
    const params = {
      model: 'qwx3.7-plus',
      max_tokens: 256,
      thinking: { type: 'enabled' as const, budget_tokens: 128 },
      tools: [
        {
          name: 'get_weather',
          description: 'weather',
          input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } },
        },
      ],
      system: [{ type: 'text' as const, text: 'be brief', cache_control: { type: 'ephemeral' as const } }],
      messages: [
        {
          role: 'user' as const,
          content: [
            { type: 'text' as const, text: 'hello messages' },
            { type: 'image' as const, source: { type: 'url' as const, url: 'https://example.com/a.png' } },
          ],
        },
      ],
    };
    const { data, response } = await client.messages
      .create(params, { headers: { 'anthropic-beta': 'prompt-caching-2024-07-31' } })
      .withResponse();
    expect(data.type).toBe('message');
    expect(data.model).toBe('qwx3.7-plus');
    expect(data.content.map((b) => b.type)).toEqual(['thinking', 'text']);
    expect(data.usage.input_tokens).toBeGreaterThan(0);
    expect(data.usage.output_tokens).toBeGreaterThan(0);
    expect(data.usage.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(typeof data.usage.cache_read_input_tokens).toBe('number');
    const sent = t.h.sim.requestsTo(UPSTREAM).slice(before);
    expect(sent).toHaveLength(1);
    const { model, ...rest } = sent[0]!.body as Record<string, unknown>;
    expect(model).toBe('qwen3.7-plus');
    const { model: _m, ...expected } = params;
    expect(rest).toEqual(expected);
    expect(sent[0]!.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent[0]!.headers['messages-version']).toBe('2023-06-01');
    expect(sent[0]!.headers['anthropic-beta']).toBe('prompt-caching-2024-07-31');
    expect(sent[0]!.headers['messages-beta']).toBe('prompt-caching-2024-07-31');
    expect(sent[0]!.headers['x-api-key']).toBe(DEFAULT_SIM_KEYS.dashscopeApiKey);
    const rows = await ledgerRows(t.h, response.headers.get('x-gateway-request-id')!);
    expect(rows).toHaveLength(1);
    const q = JSON.parse(rows[0]!.quantities) as Record<string, number>;
    // metering counts all input: uncached + cache reads + cache writes
    expect(q.input_tokens).toBe(
      data.usage.input_tokens +
        (data.usage.cache_read_input_tokens ?? 0) +
        (data.usage.cache_creation_input_tokens ?? 0),
    );
    expect(q.cache_creation_tokens).toBe(data.usage.cache_creation_input_tokens);
  });

  it('streaming: the SDK assembles the final message; usage from message_start + message_delta', async () => {
    const stream = client.messages.stream({
      model: 'qwx3.7-plus',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'stream messages' }],
    });
    const msg = await stream.finalMessage();
    expect(msg.model).toBe('qwx3.7-plus');
    const text = msg.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    expect(text).toContain('stream messages');
    expect(msg.usage.input_tokens).toBeGreaterThan(0);
    expect(msg.usage.output_tokens).toBeGreaterThan(1);
  });

  it('Bearer auth works too, and the contract header names are forwarded in both spellings', async () => {
    const before = t.h.sim.requestsTo(UPSTREAM).length;
    const r = await t.h.fetch('/v1/messages', {
      method: 'POST',
      token: t.token,
      headers: { 'messages-version': '2023-06-01', 'messages-beta': 'x-beta' },
      json: { model: 'qwx3.7-plus', max_tokens: 20, stream: true, messages: [{ role: 'user', content: 'bearer' }] },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-gateway-request-id')).toMatch(/^req_/);
    const events = sseEvents(await r.text());
    expect(events[0]!.event).toBe('message_start');
    expect(events.at(-1)!.event).toBe('message_stop');
    const sent = t.h.sim.requestsTo(UPSTREAM).slice(before);
    expect(sent[0]!.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent[0]!.headers['anthropic-beta']).toBe('x-beta');
  });

  it('max_tokens is required (400, family-B shape)', async () => {
    const r = await t.h.fetch('/v1/messages', {
      method: 'POST',
      token: t.token,
      json: { model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'x' }] },
    });
    expect(r.status).toBe(400);
    expect(((await r.json()) as BErr).error.param).toBe('max_tokens');
  });

  it.each([
    ['a message without a role', [{ content: 'x' }]],
    ['a message without content', [{ role: 'user' }]],
    ['a message whose content is a number', [{ role: 'user', content: 7 }]],
    ['a message that is not an object', ['hello']],
    ['a null content block', [{ role: 'user', content: [null] }]],
    ['a content block without a type', [{ role: 'user', content: [{ text: 'x' }] }]],
  ])('%s is refused (400 invalid_parameter, param messages) and never sent upstream', async (_name, messages) => {
    const before = t.h.sim.requestsTo(UPSTREAM).length;
    const r = await t.h.fetch('/v1/messages', {
      method: 'POST',
      token: t.token,
      json: { model: 'qwx3.7-plus', max_tokens: 10, messages },
    });
    expect(r.status).toBe(400);
    const e = ((await r.json()) as BErr).error;
    expect(e).toMatchObject({ code: 'invalid_parameter', param: 'messages' });
    expect(e.request_id).toBe(r.headers.get('x-gateway-request-id'));
    expect(t.h.sim.requestsTo(UPSTREAM).length).toBe(before);
  });
});

describe('messages error event', () => {
  it('carries the upstream request id and param beside type/message (contract 7.2)', () => {
    const ge = new GatewayError('upstream_error', 'The upstream stream broke', { upstreamRequestId: 'up-req-42' });
    const frame = messagesErrorFrame(ge, renderFamilyB(ge, 'req_1').error);
    expect(frame.startsWith('event: error\ndata: ')).toBe(true);
    const data = JSON.parse(frame.slice('event: error\ndata: '.length)) as {
      type: string;
      error: Record<string, unknown>;
    };
    expect(data.type).toBe('error');
    expect(data.error).toMatchObject({
      type: 'api_error',
      code: 'upstream_error',
      request_id: 'req_1',
      upstream_request_id: 'up-req-42',
    });
    const bad = new GatewayError('invalid_parameter', 'bad', { param: 'messages' });
    const badData = JSON.parse(
      messagesErrorFrame(bad, renderFamilyB(bad, 'req_2').error).slice('event: error\ndata: '.length),
    ) as {
      error: Record<string, unknown>;
    };
    expect(badData.error).toMatchObject({ param: 'messages', request_id: 'req_2' });
    expect(badData.error).not.toHaveProperty('upstream_request_id');
  });
});
