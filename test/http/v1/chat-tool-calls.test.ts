// Chat with function calling through the gateway (openai SDK), the simulator calling the tool: the call reaches the
// client intact, and a stream whose upstream reports no usage is charged by the estimate — which counts the tool
// call's arguments as output (a stream that only calls a tool is not free).
import type OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { openaiClient } from '../../support/sdk.ts';
import { ledgerRows, requestLogRow } from '../../support/store-rows.ts';

const t = useHarness();
let client: OpenAI;
beforeAll(() => {
  client = openaiClient(t.h, t.token);
});

const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'The weather in a city',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' }, days: { type: 'integer' } },
        required: ['city'],
      },
    },
  },
];

describe('chat with tools', () => {
  it('non-streaming: the tool call reaches the client as the SDK reads it', async () => {
    const r = await client.chat.completions.create({
      model: 'qwx3.7-plus',
      tools,
      messages: [{ role: 'user', content: 'Weather in Paris for the weekend' }],
    });
    const call = r.choices[0]!.message.tool_calls![0]! as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
    expect(r.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Weather in Paris for the weekend', days: 1 });
  });

  it('a streamed tool call without upstream usage is charged by the estimate of its arguments', async () => {
    const { data: stream, response } = await client.chat.completions
      .create({
        model: 'qwx3.7-plus',
        stream: true,
        tools,
        messages: [{ role: 'user', content: 'Weather in Paris for the whole long weekend please sim-fault:no-usage' }],
      })
      .withResponse();
    const rid = response.headers.get('x-gateway-request-id')!;
    let args = '';
    let content = '';
    let finish: string | null = null;
    for await (const c of stream) {
      const choice = c.choices[0];
      if (!choice) continue;
      content += choice.delta.content ?? '';
      for (const tc of choice.delta.tool_calls ?? []) args += tc.function?.arguments ?? '';
      finish = choice.finish_reason ?? finish;
    }
    expect(finish).toBe('tool_calls');
    expect(content).toBe('');
    expect(JSON.parse(args)).toMatchObject({ city: expect.stringContaining('Paris') as string });

    const log = await requestLogRow(t.h, rid);
    const usage = JSON.parse(log.usage!) as { input_tokens: number; output_tokens: number; estimated?: boolean };
    expect(usage.estimated).toBe(true);
    // ≈4 characters a token, over the arguments as the wire carried them (their quotes escaped).
    expect(usage.output_tokens).toBeGreaterThanOrEqual(Math.ceil(args.length / 4));
    expect(usage.output_tokens).toBeLessThanOrEqual(Math.ceil(JSON.stringify(args).length / 4));
    const rows = await ledgerRows(t.h, rid);
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0]!.quantities)).toMatchObject({ output_tokens: usage.output_tokens });
    expect(Number(rows[0]!.amount)).toBeGreaterThan(0);
  });

  it("non-streaming without upstream usage: the output is estimated from the answer (content, or a tool call's arguments), not charged as 0", async () => {
    const plain = await client.chat.completions
      .create({
        model: 'qwx3.7-plus',
        messages: [{ role: 'user', content: 'tell me about spring sim-fault:no-usage' }],
      })
      .withResponse();
    const content = plain.data.choices[0]!.message.content ?? '';
    expect(content.length).toBeGreaterThan(20);
    const tool = await client.chat.completions
      .create({
        model: 'qwx3.7-plus',
        tools,
        messages: [{ role: 'user', content: 'Weather in Rome for the whole long weekend please sim-fault:no-usage' }],
      })
      .withResponse();
    const args = (
      tool.data.choices[0]!.message.tool_calls![0]! as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall
    ).function.arguments;
    for (const [r, chars] of [
      [plain, content.length],
      [tool, args.length],
    ] as const) {
      const rid = r.response.headers.get('x-gateway-request-id')!;
      const usage = JSON.parse((await requestLogRow(t.h, rid)).usage!) as {
        output_tokens: number;
        estimated?: boolean;
      };
      expect(usage.estimated).toBe(true);
      expect(usage.output_tokens).toBe(Math.ceil(chars / 4));
      const rows = await ledgerRows(t.h, rid);
      expect(rows).toHaveLength(1);
      expect(JSON.parse(rows[0]!.quantities)).toMatchObject({ output_tokens: usage.output_tokens });
    }
  });
});
