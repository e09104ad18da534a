// Bodies without keys that stalled the event loop (issue 58 item 10): millions of empty objects, of 250-deep arrays,
// of zeros. Each is refused before JSON.parse sees it, through the text lane and through Fastify's routes, in the
// family's error shape; a text call's text outside inline media has a lower limit than its body; and a text
// endpoint drops top-level fields neither its API nor the upstream defines before anything walks them.
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { CHAT_TEXT_LIMIT } from '../../src/http/front/body-limits.ts';
import { MAX_JSON_VALUES } from '../../src/http/json-body.ts';
import { expectA, expectB } from '../support/error-shapes.ts';
import { useHarness } from '../support/harness.ts';

/** The attack shapes as measured: 5 M empty objects, 20,000 arrays 250 deep, 9.5 M zeros (each 10–19 MB). */
const ATTACKS: Record<string, string> = {
  'empty objects': `[${'{},'.repeat(5_000_000 - 1)}{}]`,
  'deep arrays': `[${`${'['.repeat(250)}${']'.repeat(250)},`.repeat(20_000 - 1)}${'['.repeat(250)}${']'.repeat(250)}]`,
  zeros: `[${'0,'.repeat(9_500_000 - 1)}0]`,
};
/** Under the text limit but over the value count: 600,000 empty objects (1.8 MB). */
const VALUES = `[${'{},'.repeat(MAX_JSON_VALUES + 100_000)}{}]`;
const IMAGE = { type: 'image_url', image_url: { url: `data:image/png;base64,${'A'.repeat(1000)}` } };
const chat = (x: string, content: unknown = 'x') =>
  `{"model":"qwx3.7-plus","messages":[{"role":"user","content":${JSON.stringify(content)}}],"x":${x}}`;

describe('bodies of millions of values, refused unparsed', () => {
  const t = useHarness();
  let parse: MockInstance<typeof JSON.parse>;
  beforeEach(() => {
    parse = vi.spyOn(JSON, 'parse');
  });
  afterEach(() => parse.mockRestore());
  /** No body of that size reached JSON.parse (secure-json-parse calls it too). */
  const neverParsed = (min: number) =>
    expect(parse.mock.calls.filter(([s]) => typeof s === 'string' && s.length >= min)).toHaveLength(0);
  const post = (path: string, text: string) =>
    t.h.fetch(path, { method: 'POST', token: t.token, headers: { 'content-type': 'application/json' }, body: text });

  it('text lane (chat, responses, messages): each attack shape is 413 for its text, also beside an inline image', async () => {
    const before = t.h.sim.requestsTo('/chat/completions').length;
    for (const [name, x] of Object.entries(ATTACKS)) {
      for (const content of ['x', [IMAGE]]) {
        const body = await expectB(await post('/v1/chat/completions', chat(x, content)), 413, 'payload_too_large');
        expect(body.error.message, name).toContain('outside inline media');
      }
      await expectB(
        await post('/v1/responses', `{"model":"qwx3.7-plus","input":"x","x":${x}}`),
        413,
        'payload_too_large',
      );
      await expectB(
        await post('/v1/messages', `{"model":"qwx3.7-plus","max_tokens":5,"messages":[],"x":${x}}`),
        413,
        'payload_too_large',
      );
    }
    neverParsed(CHAT_TEXT_LIMIT);
    expect(t.h.sim.requestsTo('/chat/completions').length).toBe(before);
  });

  it(`text lane: more than ${MAX_JSON_VALUES} values within the text limit is 400, also hidden behind a data URL`, async () => {
    const body = await expectB(await post('/v1/chat/completions', chat(VALUES)), 400, 'invalid_request');
    expect(body.error.message).toContain(`more than ${MAX_JSON_VALUES} values`);
    await expectB(await post('/v1/chat/completions', chat(VALUES, [IMAGE])), 400, 'invalid_request');
    await expectB(
      await post('/v1/embeddings', `{"model":"text-embedding-v4","input":"x","x":${VALUES}}`),
      400,
      'invalid_request',
    );
    neverParsed(VALUES.length);
  });

  it('Fastify routes: messages token count 413 for its text; image generation (family B) and family A creation 400 for the values', async () => {
    for (const x of Object.values(ATTACKS)) {
      await expectB(
        await post(
          '/v1/messages/count_tokens',
          `{"model":"qwx3.7-plus","messages":[{"role":"user","content":"x"}],"x":${x}}`,
        ),
        413,
        'payload_too_large',
      );
      const b = await expectB(
        await post('/v1/images/generations', `{"model":"qwx-image","prompt":"p","x":${x}}`),
        400,
        'invalid_request',
      );
      expect(b.error.message).toContain(`more than ${MAX_JSON_VALUES} values`);
      await expectA(
        await post('/vidx/v1/videos/text2video', `{"model_name":"vidx-v2-6","prompt":"p","x":${x}}`),
        400,
        1201,
      );
    }
    await expectB(
      await post(
        '/v1/messages/count_tokens',
        `{"model":"qwx3.7-plus","messages":[{"role":"user","content":"x"}],"x":${VALUES}}`,
      ),
      400,
      'invalid_request',
    );
    neverParsed(VALUES.length);
  });

  it('inline media lift the text limit: a chat with a data URL past the text limit is served', async () => {
    const big = {
      type: 'image_url',
      image_url: { url: `data:image/png;base64,${'A'.repeat(CHAT_TEXT_LIMIT + 1024)}` },
    };
    const r = await post(
      '/v1/chat/completions',
      JSON.stringify({ model: 'qwx3-vl-plus', messages: [{ role: 'user', content: [big] }] }),
    );
    expect(r.status).toBe(200);
    // The same length as prose: over the text limit.
    const prose = JSON.stringify({
      model: 'qwx3-vl-plus',
      messages: [{ role: 'user', content: 'A'.repeat(CHAT_TEXT_LIMIT + 1024) }],
    });
    await expectB(await post('/v1/chat/completions', prose), 413, 'payload_too_large');
  });
});

describe('unknown top-level fields of the text endpoints', () => {
  const t = useHarness();

  it('are dropped before the call goes upstream; the fields of the API and of the upstream pass', async () => {
    const r = await t.h.fetch('/v1/chat/completions', {
      method: 'POST',
      token: t.token,
      json: {
        model: 'qwx3.7-plus',
        messages: [{ role: 'user', content: 'x' }],
        enable_thinking: false,
        top_k: 5,
        junk: [[1], { a: 1 }],
        also: 'x',
      },
    });
    expect(r.status).toBe(200);
    const sent = t.h.sim.requestsTo('/chat/completions').at(-1)!.body as Record<string, unknown>;
    expect(Object.keys(sent).sort()).toEqual(['enable_thinking', 'messages', 'model', 'top_k']);
    expect(sent.model).toBe('qwen3.7-plus');
  });
});
