import { describe, expect, it } from 'vitest';
import { registerMultimodalModelHandler } from '../../simulator/dashscope/multimodal.ts';
import { DEFAULT_SIM_KEYS } from '../../simulator/index.ts';
import { useSimulator } from '../support/simulator.ts';

const s = useSimulator();

const KEY = DEFAULT_SIM_KEYS.dashscopeApiKey;
const post = (path: string, body: unknown, headers: Record<string, string> = { authorization: `Bearer ${KEY}` }) =>
  fetch(s.sim.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('simulator: DashScope text wire', () => {
  it('responses stream: SSE lines without a space after data:/event:, ends with response.completed carrying usage', async () => {
    const r = await post('/api/v2/apps/protocols/compatible-mode/v1/responses', {
      model: 'qwen3.7-plus',
      input: 'hi',
      stream: true,
    });
    const text = await r.text();
    expect(text.startsWith('event:response.created\ndata:{')).toBe(true);
    expect(text).not.toContain('data: ');
    const last = text.trim().split('\n\n').at(-1)!;
    expect(last.startsWith('event:response.completed')).toBe(true);
    expect(JSON.parse(last.split('\ndata:')[1]!).response.usage.input_tokens_details.cached_tokens).toBeTypeOf(
      'number',
    );
  });

  it('native multimodal: non-stream answer with VL usage, stream with id/event/:HTTP_STATUS and "null" finish until the end', async () => {
    const body = {
      model: 'qwen3-vl-plus',
      input: { messages: [{ role: 'user', content: [{ image: 'https://x/a.png' }, { text: 'what' }] }] },
      parameters: { result_format: 'message', incremental_output: true },
    };
    const j = (await (await post('/api/v1/services/aigc/multimodal-generation/generation', body)).json()) as {
      usage: { image_tokens: number; input_tokens_details: unknown };
      output: { choices: Array<{ finish_reason: string }> };
    };
    expect(j.usage.image_tokens).toBeGreaterThan(0);
    expect(j.output.choices[0]!.finish_reason).toBe('stop');
    const s = await (
      await post('/api/v1/services/aigc/multimodal-generation/generation', body, {
        authorization: `Bearer ${KEY}`,
        'x-dashscope-sse': 'enable',
      })
    ).text();
    const events = s.trim().split('\n\n');
    expect(events[0]).toMatch(/^id:1\nevent:result\n:HTTP_STATUS\/200\ndata:\{/);
    expect(events.slice(0, -1).every((e) => e.includes('"finish_reason":"null"'))).toBe(true);
    expect(events.at(-1)).toContain('"finish_reason":"stop"');
    expect(s).not.toContain('[DONE]');
  });

  it('multimodal dispatch: a registered model prefix gets its own handler', async () => {
    registerMultimodalModelHandler('sim-test-model', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"handled":"prefix"}');
    });
    const r = await post('/api/v1/services/aigc/multimodal-generation/generation', {
      model: 'sim-test-model-x',
      input: { messages: [] },
    });
    expect(await r.json()).toEqual({ handled: 'prefix' });
  });

  it('anthropic path: x-api-key accepted, wrong key 401 in the messages error shape; usage has the cache fields', async () => {
    const ok = await post(
      '/apps/anthropic/v1/messages',
      { model: 'qwen3.7-plus', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] },
      { 'x-api-key': KEY },
    );
    const m = (await ok.json()) as { type: string; usage: Record<string, number> };
    expect(m.type).toBe('message');
    expect(Object.keys(m.usage).sort()).toEqual([
      'cache_creation_input_tokens',
      'cache_read_input_tokens',
      'input_tokens',
      'output_tokens',
    ]);
    const bad = await post(
      '/apps/anthropic/v1/messages',
      { model: 'qwen3.7-plus', max_tokens: 10, messages: [] },
      { 'x-api-key': 'sk-wrong-000000' },
    );
    expect(bad.status).toBe(401);
    expect(((await bad.json()) as { type: string }).type).toBe('error');
  });

  it('compat chat tools: the named (else first) function is called with arguments from the prompt, streamed in pieces; none after a tool result or with tool_choice none', async () => {
    const tools = [
      {
        type: 'function',
        function: { name: 'first', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
      },
      {
        type: 'function',
        function: {
          name: 'second',
          parameters: {
            type: 'object',
            properties: { city: { type: 'string' }, n: { type: 'number' }, ok: { type: 'boolean' } },
          },
        },
      },
    ];
    const chat = (extra: Record<string, unknown>, messages: unknown[] = [{ role: 'user', content: 'Lyon' }]) =>
      post('/compatible-mode/v1/chat/completions', { model: 'qwen3.7-plus', tools, messages, ...extra });
    type Answer = {
      choices: Array<{
        finish_reason: string;
        message: {
          content: string;
          tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
        };
      }>;
      usage: { completion_tokens: number };
    };
    const one = (await (
      await chat({ tool_choice: { type: 'function', function: { name: 'second' } } })
    ).json()) as Answer;
    expect(one.choices[0]!.finish_reason).toBe('tool_calls');
    const call = one.choices[0]!.message.tool_calls![0]!;
    expect(call.type).toBe('function');
    expect(call.id).toMatch(/^call_/);
    expect(call.function.name).toBe('second');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Lyon', n: 1, ok: true });
    expect(one.usage.completion_tokens).toBeGreaterThan(0);
    expect(((await (await chat({})).json()) as Answer).choices[0]!.message.tool_calls![0]!.function.name).toBe('first');
    for (const answer of [
      await chat({ tool_choice: 'none' }),
      await chat({}, [
        { role: 'user', content: 'Lyon' },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      ]),
    ]) {
      const a = (await answer.json()) as Answer;
      expect(a.choices[0]!.finish_reason).toBe('stop');
      expect(a.choices[0]!.message.tool_calls).toBeUndefined();
    }
    // Streamed: the id and name first, then the arguments in pieces; usage last (as asked).
    const text = await (await chat({ stream: true, stream_options: { include_usage: true } })).text();
    const events = text
      .trim()
      .split('\n\n')
      .map((e) => e.slice('data: '.length));
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map(
      (e) =>
        JSON.parse(e) as {
          choices: Array<{
            delta: { tool_calls?: Array<{ id?: string; function: { name?: string; arguments: string } }> };
            finish_reason: string | null;
          }>;
          usage: unknown;
        },
    );
    expect(chunks[0]!.choices[0]!.delta.tool_calls![0]!.function.name).toBe('first');
    const pieces = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls?.map((tc) => tc.function.arguments) ?? []);
    expect(pieces.filter((p) => p !== '').length).toBeGreaterThan(1);
    expect(JSON.parse(pieces.join(''))).toEqual({ q: 'Lyon' });
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)!.usage).toMatchObject({ completion_tokens: expect.any(Number) as number });
  });

  it('no-usage fault: compat chat answers and streams (include_usage asked) without usage', async () => {
    const body = { model: 'qwen3.7-plus', messages: [{ role: 'user', content: 'hi sim-fault:no-usage' }] };
    const plain = (await (await post('/compatible-mode/v1/chat/completions', body)).json()) as Record<string, unknown>;
    expect(plain.choices).toHaveLength(1);
    expect(plain).not.toHaveProperty('usage');
    const streamed = await (
      await post('/compatible-mode/v1/chat/completions', {
        ...body,
        stream: true,
        stream_options: { include_usage: true },
      })
    ).text();
    expect(streamed).toContain('"content":"');
    expect(streamed).not.toContain('"usage":{');
    expect(streamed.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('compat chat stream: usage chunk only with include_usage; embeddings refuse base64', async () => {
    const t = await (
      await post('/compatible-mode/v1/chat/completions', {
        model: 'qwen3.7-plus',
        stream: true,
        messages: [{ role: 'user', content: 'x' }],
      })
    ).text();
    expect(t).not.toContain('"usage":{');
    const u = await (
      await post('/compatible-mode/v1/chat/completions', {
        model: 'qwen3.7-plus',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'x' }],
      })
    ).text();
    expect(u).toContain('"choices":[],"usage":{');
    const e = await post('/compatible-mode/v1/embeddings', {
      model: 'text-embedding-v4',
      input: 'x',
      encoding_format: 'base64',
    });
    expect(e.status).toBe(400);
  });
});
