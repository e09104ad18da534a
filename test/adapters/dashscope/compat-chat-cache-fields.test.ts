// Chat-style cache writes are reported at usage.prompt_tokens_details.cache_creation_input_tokens.
// An upstream answer that has them only at usage.cache_creation_input_tokens is normalised (both modes); an
// answer already in the contract's shape passes byte for byte (apart from the model name).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compatChat } from '../../../src/adapters/dashscope/compat-chat.ts';
import { UpstreamClient } from '../../../src/adapters/http-client.ts';

const UP = 'qwen3.7-plus';
let server: http.Server;
let base = '';
let answer = '';
let streamAnswer = '';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.headers.accept === 'text/event-stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(streamAnswer);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(answer);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const client = new UpstreamClient();
const cap = compatChat(client);
const target = () => ({ target: { baseUrl: base, apiKey: 'sk-test' } });
const req = (clientWantsUsage = false) => ({
  body: { model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'hi' }] },
  upstreamModel: UP,
  publicModel: 'qwx3.7-plus',
  clientWantsUsage,
});
const completion = (usage: Record<string, unknown>) =>
  JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    model: UP,
    choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
    usage,
  });

describe('chat cache-creation tokens in the contract place', () => {
  it('non-streaming: a top-level cache_creation_input_tokens is copied under prompt_tokens_details; metered the same', async () => {
    answer = completion({
      prompt_tokens: 100,
      completion_tokens: 5,
      total_tokens: 105,
      cache_creation_input_tokens: 40,
      prompt_tokens_details: { cached_tokens: 10 },
    });
    const out = await cap.complete(req(), target());
    const body = JSON.parse(out.body) as {
      model: string;
      usage: { prompt_tokens_details: Record<string, number>; cache_creation_input_tokens: number };
    };
    expect(body.model).toBe('qwx3.7-plus');
    expect(body.usage.prompt_tokens_details).toEqual({ cached_tokens: 10, cache_creation_input_tokens: 40 });
    expect(out.usage).toMatchObject({ inputTokens: 100, outputTokens: 5, cachedTokens: 10, cacheCreationTokens: 40 });
  });

  it('non-streaming: an answer already in the contract shape is passed as it is', async () => {
    answer = completion({
      prompt_tokens: 100,
      completion_tokens: 5,
      total_tokens: 105,
      prompt_tokens_details: { cached_tokens: 0, cache_creation_input_tokens: 40 },
    });
    const out = await cap.complete(req(), target());
    expect(out.body).toBe(answer.replace(`"model":"${UP}"`, '"model":"qwx3.7-plus"'));
  });

  it('a usage object found deeper than the top level is left alone (no rewrite, no failure)', async () => {
    answer = JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      model: UP,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'ok' },
          finish_reason: 'stop',
          usage: { cache_creation_input_tokens: 7 },
        },
      ],
    });
    const out = await cap.complete(req(), target());
    expect(out.body).toBe(answer.replace(`"model":"${UP}"`, '"model":"qwx3.7-plus"'));
  });

  it('streaming, usage asked for: the usage chunk carries the field under prompt_tokens_details', async () => {
    const chunk = (o: Record<string, unknown>) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', model: UP, ...o })}\n\n`;
    streamAnswer =
      chunk({ choices: [{ index: 0, delta: { content: 'ok' }, finish_reason: 'stop' }] }) +
      chunk({
        choices: [],
        usage: { prompt_tokens: 100, completion_tokens: 5, total_tokens: 105, cache_creation_input_tokens: 40 },
      }) +
      'data: [DONE]\n\n';
    const s = await cap.stream(req(true), target());
    let text = '';
    for await (const f of s.frames) text += f;
    const usageLine = text.split('\n\n').find((l) => l.includes('"usage":{'))!;
    const u = (
      JSON.parse(usageLine.slice('data: '.length)) as { usage: { prompt_tokens_details: Record<string, number> } }
    ).usage;
    expect(u.prompt_tokens_details).toEqual({ cached_tokens: 0, cache_creation_input_tokens: 40 });
    expect(s.usage()).toMatchObject({ inputTokens: 100, cacheCreationTokens: 40 });
  });
});
