// POST /v1/chat/completions through the openai SDK: answers and streams in the public model's name, usage metered,
// models listed, bad input refused before the upstream. Image parts: chat-images.test.ts.
import type OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { textReservation } from '../../../src/core/text-estimate.ts';
import { useHarness } from '../../support/harness.ts';
import { openaiClient } from '../../support/sdk.ts';
import { sseEvents } from '../../support/sse.ts';
import { ledgerRows } from '../../support/store-rows.ts';
import type { BErr } from '../../support/error-shapes.ts';

const t = useHarness();
let client: OpenAI;
beforeAll(() => {
  client = openaiClient(t.h, t.token);
});

describe('POST /v1/chat/completions (openai SDK)', () => {
  it('non-streaming: one complete message with usage, public model name, upstream name sent upstream, one ledger row', async () => {
    const before = t.h.sim.requestsTo('/compatible-mode/v1/chat/completions').length;
    const { data, response } = await client.chat.completions
      .create({ model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'hello there' }] })
      .withResponse();
    const rid = response.headers.get('x-gateway-request-id')!;
    expect(rid).toMatch(/^req_/);
    expect(data.object).toBe('chat.completion');
    expect(data.model).toBe('qwx3.7-plus');
    expect(data.choices[0]!.message.content).toContain('hello there');
    expect(data.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(data.usage!.completion_tokens).toBeGreaterThan(0);
    const sent = t.h.sim.requestsTo('/compatible-mode/v1/chat/completions').slice(before);
    expect(sent).toHaveLength(1);
    expect((sent[0]!.body as { model: string }).model).toBe('qwen3.7-plus');
    const rows = await ledgerRows(t.h, rid);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.model).toBe('qwx3.7-plus');
    expect(Number(rows[0]!.amount)).toBeGreaterThan(0);
    expect(JSON.parse(rows[0]!.quantities).input_tokens).toBe(data.usage!.prompt_tokens);
  });

  it('streaming: chunks ending with a finish chunk; usage chunk only when the client asked', async () => {
    const stream = await client.chat.completions.create({
      model: 'qwx3.7-plus',
      messages: [{ role: 'user', content: 'stream please' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined = null;
    for await (const c of stream) {
      expect(c.model).toBe('qwx3.7-plus');
      if (c.choices[0]?.delta.content) text += c.choices[0].delta.content;
      if (c.choices[0]?.finish_reason) finish = c.choices[0].finish_reason;
      if (c.usage) usage = c.usage;
    }
    expect(text).toContain('stream please');
    expect(finish).toBe('stop');
    expect(usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('streaming: text in any script reaches the client byte for byte, in frames renamed to the public model', async () => {
    const said = 'grüß 你好，世界 😀 "quoted" \\ end';
    const r = await t.h.fetch('/v1/chat/completions', {
      method: 'POST',
      token: t.token,
      json: {
        model: 'qwx3.7-plus',
        messages: [{ role: 'user', content: said }],
        stream: true,
        stream_options: { include_usage: true },
      },
    });
    expect(r.status).toBe(200);
    const events = sseEvents(await r.text());
    expect(events.at(-1)!.data).toBe('[DONE]');
    const chunks = events
      .filter((e) => e.data !== '[DONE]')
      .map(
        (e) =>
          JSON.parse(e.data) as {
            model: string;
            choices: Array<{ delta: { content?: string } }>;
            usage: { completion_tokens: number } | null;
          },
      );
    expect(chunks.every((c) => c.model === 'qwx3.7-plus')).toBe(true);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toContain(said);
    expect(chunks.at(-1)!.usage!.completion_tokens).toBeGreaterThan(0);
  });

  it('stream usage is captured upstream even when the client did not ask (client sees no usage chunk; ledger row exists)', async () => {
    const before = t.h.sim.requestsTo('/compatible-mode/v1/chat/completions').length;
    const r = await t.h.fetch('/v1/chat/completions', {
      method: 'POST',
      token: t.token,
      json: { model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'no usage asked' }], stream: true },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/event-stream');
    const rid = r.headers.get('x-gateway-request-id')!;
    expect(rid).toMatch(/^req_/);
    const events = sseEvents(await r.text());
    expect(events.at(-1)!.data).toBe('[DONE]');
    const chunks = events
      .filter((e) => e.data !== '[DONE]')
      .map((e) => JSON.parse(e.data) as { usage: unknown; choices: unknown[] });
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.every((c) => c.usage === null && c.choices.length === 1)).toBe(true);
    const sent = t.h.sim.requestsTo('/compatible-mode/v1/chat/completions').slice(before);
    expect((sent[0]!.body as { stream_options: { include_usage: boolean } }).stream_options.include_usage).toBe(true);
    const rows = await ledgerRows(t.h, rid);
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0]!.quantities).output_tokens).toBeGreaterThan(0);
  });

  it('GET /v1/models through the SDK lists the visible public models', async () => {
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toContain('qwx3.7-plus');
    expect(ids).toContain('qwx3-vl-plus');
    expect(ids.some((id) => id.startsWith('qwen'))).toBe(false); // public names only
    const one = await client.models.retrieve('qwx3.7-plus');
    expect(one.id).toBe('qwx3.7-plus');
  });

  it('an embedding model is refused on chat; bad messages are 400 in family-B shape', async () => {
    const r = await t.h.fetch('/v1/chat/completions', {
      method: 'POST',
      token: t.token,
      json: { model: 'text-embedding-v4', messages: [{ role: 'user', content: 'x' }] },
    });
    expect(r.status).toBe(400);
    expect(((await r.json()) as BErr).error.code).toBe('model_not_supported');
    const r2 = await t.h.fetch('/v1/chat/completions', {
      method: 'POST',
      token: t.token,
      json: { model: 'qwx3.7-plus', messages: 'hi' },
    });
    expect(r2.status).toBe(400);
    expect(((await r2.json()) as BErr).error.param).toBe('messages');
    // Content parts are objects with a type; anything else is refused before it reaches the upstream.
    for (const content of [[null], ['text'], [{ text: 'no type' }]]) {
      const before = t.h.sim.requestsTo('/chat/completions').length;
      const r3 = await t.h.fetch('/v1/chat/completions', {
        method: 'POST',
        token: t.token,
        json: { model: 'qwx3.7-plus', messages: [{ role: 'user', content }] },
      });
      expect(r3.status).toBe(400);
      expect(((await r3.json()) as BErr).error).toMatchObject({ code: 'invalid_parameter', param: 'messages' });
      expect(t.h.sim.requestsTo('/chat/completions').length).toBe(before);
    }
  });

  it('qwx3-vl-plus is metered at the context tier of its input token count', async () => {
    const big = 'word '.repeat(28_000); // 140K chars ≈ 35K tokens: above the 32K tier
    const { response } = await client.chat.completions
      .create({ model: 'qwx3-vl-plus', messages: [{ role: 'user', content: big }] })
      .withResponse();
    const small = await client.chat.completions
      .create({ model: 'qwx3-vl-plus', messages: [{ role: 'user', content: 'small' }] })
      .withResponse();
    const [bigRow] = await ledgerRows(t.h, response.headers.get('x-gateway-request-id')!);
    const [smallRow] = await ledgerRows(t.h, small.response.headers.get('x-gateway-request-id')!);
    expect(JSON.parse(bigRow!.quantities).tier_max_input_tokens).toBe(128_000);
    expect(JSON.parse(smallRow!.quantities).tier_max_input_tokens).toBe(32_000);
  });

  it('a token with a quota is checked before the upstream call', async () => {
    // The quota fits one call's reservation (its upper estimate), not two.
    const tok = await t.h.token({
      quota: t.h.gw.deps.meter.price(
        'qwx3.7-plus',
        textReservation({ model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'spend' }] }, true),
      ).amount,
    });
    const c = openaiClient(t.h, tok.secret);
    const first = await c.chat.completions
      .create({ model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'spend' }] })
      .withResponse();
    await ledgerRows(t.h, first.response.headers.get('x-gateway-request-id')!);
    const before = t.h.sim.requestsTo('/compatible-mode/v1/chat/completions').length;
    await expect(
      c.chat.completions.create({ model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'again' }] }),
    ).rejects.toMatchObject({ status: 429 });
    expect(t.h.sim.requestsTo('/compatible-mode/v1/chat/completions').length).toBe(before);
  });
});
