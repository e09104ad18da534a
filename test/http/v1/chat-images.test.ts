// Chat with image parts: the native multimodal path for a text model, compatible mode for VL models, and image URLs
// refused before the upstream.
import type OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { openaiClient } from '../../support/sdk.ts';
import type { BErr } from '../../support/error-shapes.ts';

const t = useHarness();
let client: OpenAI;
beforeAll(() => {
  client = openaiClient(t.h, t.token);
});

describe('POST /v1/chat/completions (openai SDK)', () => {
  it('image part on qwx3.7-plus goes to the native multimodal path (both modes); answer in chat shape', async () => {
    const before = t.h.sim.requestsTo('multimodal-generation').length;
    const compatBefore = t.h.sim.requestsTo('/compatible-mode/v1/chat/completions').length;
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is in the picture' },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
        ],
      },
    ];
    const done = await client.chat.completions.create({ model: 'qwx3.7-plus', messages });
    expect(done.object).toBe('chat.completion');
    expect(done.model).toBe('qwx3.7-plus');
    expect(done.choices[0]!.message.content).toContain('what is in the picture');
    expect(done.usage!.prompt_tokens).toBeGreaterThan(258);
    const stream = await client.chat.completions.create({
      model: 'qwx3.7-plus',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const c of stream) {
      text += c.choices[0]?.delta.content ?? '';
      if (c.usage) usage = c.usage;
    }
    expect(text).toContain('what is in the picture');
    expect(usage!.prompt_tokens).toBe(done.usage!.prompt_tokens);
    const native = t.h.sim.requestsTo('multimodal-generation').slice(before);
    expect(native).toHaveLength(2);
    const body = native[0]!.body as { model: string; input: { messages: Array<{ content: unknown[] }> } };
    expect(body.model).toBe('qwen3.7-plus');
    expect(body.input.messages[0]!.content).toEqual([
      { text: 'what is in the picture' },
      { image: 'https://example.com/cat.png' },
    ]);
    expect(native[1]!.headers['x-dashscope-sse']).toBe('enable');
    expect(t.h.sim.requestsTo('/compatible-mode/v1/chat/completions').length).toBe(compatBefore);
  });

  it('qwx3-vl-plus with an image part stays on compatible mode (VL models take image_url there)', async () => {
    const before = t.h.sim.requestsTo('/compatible-mode/v1/chat/completions').length;
    const nativeBefore = t.h.sim.requestsTo('multimodal-generation').length;
    const r = await client.chat.completions.create({
      model: 'qwx3-vl-plus',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'text', text: 'describe' },
          ],
        },
      ],
    });
    expect(r.model).toBe('qwx3-vl-plus');
    const sent = t.h.sim.requestsTo('/compatible-mode/v1/chat/completions').slice(before);
    expect((sent[0]!.body as { model: string }).model).toBe('qwen3-vl-plus');
    expect(t.h.sim.requestsTo('multimodal-generation').length).toBe(nativeBefore);
  });

  it.each([
    ['qwx3-vl-plus', 'file:///etc/passwd'],
    ['qwx3-vl-plus', undefined],
    ['qwx3.7-plus', 'ftp://example.com/a.png'],
  ])('%s with image_url %j: 400 invalid_parameter (param messages), nothing sent upstream', async (model, url) => {
    const before =
      t.h.sim.requestsTo('/compatible-mode/v1/chat/completions').length +
      t.h.sim.requestsTo('multimodal-generation').length;
    const part = { type: 'image_url', image_url: url === undefined ? {} : { url } };
    const r = await t.h.fetch('/v1/chat/completions', {
      method: 'POST',
      token: t.token,
      json: { model, messages: [{ role: 'user', content: [part, { type: 'text', text: 'describe' }] }] },
    });
    expect(r.status).toBe(400);
    expect(((await r.json()) as BErr).error).toMatchObject({ code: 'invalid_parameter', param: 'messages' });
    expect(
      t.h.sim.requestsTo('/compatible-mode/v1/chat/completions').length +
        t.h.sim.requestsTo('multimodal-generation').length,
    ).toBe(before);
  });

  it.each([
    ['tools', { tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }] }],
    ['response_format', { response_format: { type: 'json_object' } }],
    ['n', { n: 2 }],
  ])(
    'qwx3.7-plus with an image and %s (no equivalent on the multimodal path): 400 naming the field, nothing sent',
    async (param, extra) => {
      const before =
        t.h.sim.requestsTo('multimodal-generation').length +
        t.h.sim.requestsTo('/compatible-mode/v1/chat/completions').length;
      const r = await t.h.fetch('/v1/chat/completions', {
        method: 'POST',
        token: t.token,
        json: {
          model: 'qwx3.7-plus',
          ...extra,
          messages: [
            {
              role: 'user',
              content: [
                { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
                { type: 'text', text: 'what is it' },
              ],
            },
          ],
        },
      });
      expect(r.status).toBe(400);
      const e = ((await r.json()) as BErr).error;
      expect(e).toMatchObject({ code: 'invalid_parameter', param });
      expect(e.message).toMatch(/image input/);
      expect(
        t.h.sim.requestsTo('multimodal-generation').length +
          t.h.sim.requestsTo('/compatible-mode/v1/chat/completions').length,
      ).toBe(before);
    },
  );
});
