// POST /v1/messages/count_tokens through @anthropic-ai/sdk: the documented local estimate (characters of the string
// values of system, messages and tools, four to a token rounded up, plus 258 per image or document block), the
// model rules of /v1/messages, no upstream call, no charge, and a request-log row like any other call.
import { describe, expect, it } from 'vitest';
import { estimateMessageTokens } from '../../../src/core/count-tokens.ts';
import { useHarness } from '../../support/harness.ts';
import { anthropicClient } from '../../support/sdk.ts';
import { ledgerOfRequest, requestLogRow } from '../../support/store-rows.ts';

const t = useHarness();
const MODEL = 'qwx3.7-plus';
const TOOL = {
  name: 'get_weather',
  description: 'Weather of a city',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } },
};
const IMAGE = {
  type: 'image' as const,
  source: { type: 'base64' as const, media_type: 'image/png' as const, data: 'iVBORw0KGgo=' },
};

describe('the estimate', () => {
  it.each([
    // 'You are terse.' (14) + 'Hello there' (11) = 25 characters → 7 tokens
    ['system and one message', { system: 'You are terse.', messages: [{ role: 'user', content: 'Hello there' }] }, 7],
    // + 'get_weather' (11) + 'Weather of a city' (17): 53 characters → 14; schema `type` values are not text
    [
      'with a tool',
      { system: 'You are terse.', messages: [{ role: 'user', content: 'Hello there' }], tools: [TOOL] },
      14,
    ],
    // text blocks count their text; an image block 258 whatever its size
    [
      'text and image blocks',
      { messages: [{ role: 'user', content: [{ type: 'text', text: 'What is it?' }, IMAGE] }] },
      3 + 258,
    ],
    [
      'a conversation',
      {
        messages: [
          { role: 'user', content: 'abcd' },
          { role: 'assistant', content: 'efgh' },
          { role: 'user', content: 'i' },
        ],
      },
      3,
    ],
  ])('%s', (_name, body, want) => {
    expect(estimateMessageTokens(body)).toBe(want);
  });
});

describe('POST /v1/messages/count_tokens', () => {
  it('answers {input_tokens} by the rule; nothing sent upstream, nothing charged, one request-log row', async () => {
    const before = t.h.sim.requestsTo('/apps/anthropic/').length;
    const client = anthropicClient(t.h, t.token);
    const r = await client.messages
      .countTokens({
        model: MODEL,
        system: 'You are terse.',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello there' }, IMAGE] }],
        tools: [TOOL],
      })
      .withResponse();
    expect(r.data.input_tokens).toBe(14 + 258);
    expect(Object.keys(r.data).filter((k) => k !== '_request_id')).toEqual(['input_tokens']);
    const rid = r.response.headers.get('x-gateway-request-id')!;
    expect(t.h.sim.requestsTo('/apps/anthropic/').length).toBe(before);
    expect(await ledgerOfRequest(t.h, rid)).toEqual([]);
    const row = await requestLogRow(t.h, rid);
    expect([row.endpoint, row.status, row.model, Number(row.amount)]).toEqual([
      '/v1/messages/count_tokens',
      200,
      MODEL,
      0,
    ]);
  });

  it('the model rules of /v1/messages: a model outside the token allow-list is not found, a model without the messages API is refused', async () => {
    const narrow = await t.h.token({ models: ['text-embedding-v4'] });
    const e1 = await anthropicClient(t.h, narrow.secret)
      .messages.countTokens({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect((e1 as { status: number; error: { error: { code: string } } }).status).toBe(404);
    expect((e1 as { error: { error: { code: string } } }).error.error.code).toBe('model_not_found');
    const e2 = await anthropicClient(t.h, t.token)
      .messages.countTokens({ model: 'text-embedding-v4', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect((e2 as { status: number }).status).toBe(400);
    expect((e2 as { error: { error: { code: string } } }).error.error.code).toBe('model_not_supported');
  });

  it('a bad system or tools value is a 400 naming the field', async () => {
    for (const [extra, param] of [
      [{ system: 42 }, 'system'],
      [{ tools: 'x' }, 'tools'],
    ] as const) {
      const r = await t.h.fetch('/v1/messages/count_tokens', {
        method: 'POST',
        token: t.token,
        json: { model: MODEL, messages: [{ role: 'user', content: 'hi' }], ...extra },
      });
      expect(r.status).toBe(400);
      expect(((await r.json()) as { error: { param: string } }).error.param).toBe(param);
    }
  });
});
