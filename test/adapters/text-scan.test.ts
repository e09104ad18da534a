import { describe, expect, it } from 'vitest';
import { objectAfterKey, renameModel, stringValueLength } from '../../src/adapters/json-scan.ts';
import { sseEvents } from '../../src/adapters/sse-events.ts';
import { messagesUsage } from '../../src/adapters/dashscope/anthropic.ts';
import { chatUsage } from '../../src/adapters/dashscope/compat-chat.ts';
import { toNativeBody } from '../../src/adapters/dashscope/multimodal-translate.ts';

async function collect(chunks: string[]) {
  const out = [];
  for await (const e of sseEvents(
    (async function* () {
      for (const c of chunks) yield Buffer.from(c);
    })(),
  ))
    out.push(e);
  return out;
}

describe('json-scan', () => {
  it('reads the usage object without being fooled by text inside strings', () => {
    const text = JSON.stringify({
      id: 'x',
      choices: [{ message: { content: 'fake "usage":{"prompt_tokens":999} here' } }],
      usage: { prompt_tokens: 3, completion_tokens: 4, prompt_tokens_details: { cached_tokens: 2 } },
    });
    expect(objectAfterKey(text, 'usage')).toEqual({
      prompt_tokens: 3,
      completion_tokens: 4,
      prompt_tokens_details: { cached_tokens: 2 },
    });
    expect(objectAfterKey('{"usage":null}', 'usage')).toBeNull();
    expect(objectAfterKey('{"a":1', 'usage')).toBeNull();
  });

  it('finds the end of the usage object when braces appear inside its strings, and when other keys follow it', () => {
    const usage = { prompt_tokens: 3, note: 'a } and a { and "}"', details: { cached_tokens: 1, x: '{{' } };
    expect(objectAfterKey(JSON.stringify({ id: 'x', usage, created: 1, model: 'm' }), 'usage')).toEqual(usage);
    const closeFirst = { prompt_tokens: 3, note: '}' };
    expect(objectAfterKey(JSON.stringify({ usage: closeFirst, id: 'y' }), 'usage')).toEqual(closeFirst);
    const plain = { prompt_tokens: 3, completion_tokens: 4, prompt_tokens_details: { cached_tokens: 2 } };
    expect(objectAfterKey(`{"usage": ${JSON.stringify(plain)} ,"system_fingerprint":null,"id":"z"}`, 'usage')).toEqual(
      plain,
    );
    expect(objectAfterKey('{"usage":{"a":{"b":1}', 'usage')).toBeNull(); // cut off
  });

  it('renames only the real model key', () => {
    const text = JSON.stringify({
      choices: [{ message: { content: 'say "model":"qwen3.7-plus"' } }],
      model: 'qwen3.7-plus',
    });
    const out = JSON.parse(renameModel(text, 'qwen3.7-plus', 'qwx3.7-plus')) as {
      model: string;
      choices: Array<{ message: { content: string } }>;
    };
    expect(out.model).toBe('qwx3.7-plus');
    expect(out.choices[0]!.message.content).toBe('say "model":"qwen3.7-plus"');
  });

  it('measures delta text lengths including escapes', () => {
    expect(stringValueLength('{"delta":{"content":"ab\\"c"},"x":{"content":"de"}}', 'content')).toBe(5 + 2);
  });
});

describe('sse-events', () => {
  it('parses events split across chunks, with and without a space after the colon, CRLF and comments', async () => {
    const evs = await collect([
      'event:response.created\nda',
      'ta:{"a":1}\n\n',
      ': comment\r\nid:1\r\nevent: x\r\ndata: {"b":2}\r\n\r\n',
      'data: [DONE]\n\n',
    ]);
    expect(evs).toEqual([
      { event: 'response.created', data: '{"a":1}', id: null },
      { event: 'x', data: '{"b":2}', id: '1' },
      { event: null, data: '[DONE]', id: null },
    ]);
  });
});

describe('usage translation', () => {
  it('chat usage counts cache within prompt tokens', () => {
    expect(
      chatUsage({
        prompt_tokens: 3019,
        completion_tokens: 104,
        prompt_tokens_details: { cached_tokens: 2048, cache_creation_input_tokens: 10 },
      }),
    ).toEqual({
      kind: 'tokens',
      inputTokens: 3019,
      outputTokens: 104,
      cachedTokens: 2048,
      cacheCreationTokens: 10,
    });
  });
  it('messages usage adds cache reads and writes to the input total', () => {
    expect(messagesUsage({ input: 10, output: 5, cacheRead: 100, cacheCreation: 20 })).toEqual({
      kind: 'tokens',
      inputTokens: 130,
      outputTokens: 5,
      cachedTokens: 100,
      cacheCreationTokens: 20,
    });
  });
});

describe('multimodal translation', () => {
  it('OpenAI parts become native parts; parameters carried over', () => {
    const b = JSON.parse(
      toNativeBody(
        {
          messages: [
            { role: 'system', content: 'sys' },
            {
              role: 'user',
              content: [
                { type: 'image_url', image_url: { url: 'https://x/a.png' } },
                { type: 'text', text: 'what' },
              ],
            },
          ],
          max_tokens: 50,
          temperature: 0.2,
        },
        'qwen3.7-plus',
        true,
      ),
    ) as Record<string, unknown>;
    expect(b).toEqual({
      model: 'qwen3.7-plus',
      input: {
        messages: [
          { role: 'system', content: [{ text: 'sys' }] },
          { role: 'user', content: [{ image: 'https://x/a.png' }, { text: 'what' }] },
        ],
      },
      parameters: { result_format: 'message', incremental_output: true, temperature: 0.2, max_tokens: 50 },
    });
  });
  it('refuses image URLs that are neither http(s) nor data URIs', () => {
    expect(() =>
      toNativeBody(
        { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'file:///etc/passwd' } }] }] },
        'm',
        false,
      ),
    ).toThrow(/image_url/);
  });
});
