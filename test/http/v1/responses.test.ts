import type OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { openaiClient } from '../../support/sdk.ts';
import { ledgerRows } from '../../support/store-rows.ts';

const t = useHarness();
let client: OpenAI;
beforeAll(() => {
  client = openaiClient(t.h, t.token);
});

const input: OpenAI.Responses.ResponseInput = [
  { role: 'user', content: [{ type: 'input_text', text: 'tell me about responses' }] },
];

describe('POST /v1/responses (openai SDK)', () => {
  it('non-streaming: a responses object; cached_tokens preserved in usage; upstream path and name', async () => {
    const before = t.h.sim.requestsTo('/api/v2/apps/protocols/compatible-mode/v1/responses').length;
    const { data, response } = await client.responses
      .create({ model: 'qwx3.7-plus', input }, { headers: { 'x-dashscope-session-cache': 'enable' } })
      .withResponse();
    expect(data.object).toBe('response');
    expect(data.status).toBe('completed');
    expect(data.model).toBe('qwx3.7-plus');
    expect(data.output_text).toContain('tell me about responses');
    expect(data.usage!.input_tokens).toBeGreaterThan(0);
    expect(data.usage!.input_tokens_details.cached_tokens).toBe(Math.floor(data.usage!.input_tokens / 2));
    const sent = t.h.sim.requestsTo('/api/v2/apps/protocols/compatible-mode/v1/responses').slice(before);
    expect(sent).toHaveLength(1);
    expect((sent[0]!.body as { model: string }).model).toBe('qwen3.7-plus');
    expect(sent[0]!.headers['x-dashscope-session-cache']).toBe('enable');
    const rows = await ledgerRows(t.h, response.headers.get('x-gateway-request-id')!);
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0]!.quantities).cached_tokens).toBe(data.usage!.input_tokens_details.cached_tokens);
  });

  it('streaming: events through response.completed with usage (upstream SSE has no space after the colon)', async () => {
    const stream = await client.responses.create({ model: 'qwx3.7-plus', input, stream: true });
    const types: string[] = [];
    let text = '';
    let usage: OpenAI.Responses.ResponseUsage | undefined;
    for await (const ev of stream) {
      types.push(ev.type);
      if (ev.type === 'response.output_text.delta') text += ev.delta;
      if (ev.type === 'response.completed') {
        usage = ev.response.usage;
        expect(ev.response.model).toBe('qwx3.7-plus');
      }
    }
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(text).toContain('tell me about responses');
    expect(usage!.output_tokens).toBeGreaterThan(0);
  });

  it('a string input is accepted; a missing input is a 400', async () => {
    const r = await client.responses.create({ model: 'qwx3.7-plus', input: 'plain string' });
    expect(r.output_text).toContain('plain string');
    await expect(client.responses.create({ model: 'qwx3.7-plus' } as never)).rejects.toMatchObject({ status: 400 });
  });
});
