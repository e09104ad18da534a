import type OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { openaiClient } from '../../support/sdk.ts';
import { ledgerRows } from '../../support/store-rows.ts';
import type { BErr } from '../../support/error-shapes.ts';

const t = useHarness();
let token: string;
let client: OpenAI;
beforeAll(async () => {
  token = (await t.h.token({ models: ['text-embedding-v4', 'qwx3.7-plus'] })).secret;
  client = openaiClient(t.h, token);
});

describe('POST /v1/embeddings (openai SDK)', () => {
  it('an array of strings: one vector each, usage, one ledger row (SDK default base64 encoded by the gateway)', async () => {
    const before = t.h.sim.requestsTo('/compatible-mode/v1/embeddings').length;
    const { data, response } = await client.embeddings
      .create({ model: 'text-embedding-v4', input: ['first text', 'second text'] })
      .withResponse();
    expect(data.object).toBe('list');
    expect(data.data).toHaveLength(2);
    expect(data.data[0]!.embedding).toHaveLength(1024);
    expect(Math.abs(data.data[0]!.embedding.reduce((a, b) => a + b * b, 0) - 1)).toBeLessThan(1e-3);
    expect(data.usage.prompt_tokens).toBeGreaterThan(0);
    const sent = t.h.sim.requestsTo('/compatible-mode/v1/embeddings').slice(before);
    expect((sent[0]!.body as { encoding_format: string }).encoding_format).toBe('float');
    const rows = await ledgerRows(t.h, response.headers.get('x-gateway-request-id')!);
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0]!.quantities).input_tokens).toBe(data.usage.prompt_tokens);
  });

  it('a single string and explicit float format: bytes passed through', async () => {
    const r = await client.embeddings.create({
      model: 'text-embedding-v4',
      input: 'just one',
      encoding_format: 'float',
      dimensions: 64,
    });
    expect(r.data).toHaveLength(1);
    expect(r.data[0]!.embedding).toHaveLength(64);
    expect(r.model).toBe('text-embedding-v4');
  });

  it('bad input and a chat model are refused', async () => {
    const bad = await t.h.fetch('/v1/embeddings', {
      method: 'POST',
      token,
      json: { model: 'text-embedding-v4', input: [1, 2] },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as BErr).error.param).toBe('input');
    const wrong = await t.h.fetch('/v1/embeddings', {
      method: 'POST',
      token,
      json: { model: 'qwx3.7-plus', input: 'x' },
    });
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as BErr).error.code).toBe('model_not_supported');
    const hidden = await t.h.fetch('/v1/embeddings', {
      method: 'POST',
      token,
      json: { model: 'qwx3-vl-plus', input: 'x' },
    });
    expect(hidden.status).toBe(404);
    for (const stream of [true, 'NaN']) {
      const streamed = await t.h.fetch('/v1/embeddings', {
        method: 'POST',
        token,
        json: { model: 'text-embedding-v4', input: 'x', stream },
      });
      expect(streamed.status).toBe(400);
      expect(((await streamed.json()) as BErr).error.param).toBe('stream');
    }
    expect(
      (
        await t.h.fetch('/v1/embeddings', {
          method: 'POST',
          token,
          json: { model: 'text-embedding-v4', input: 'x', stream: false },
        })
      ).status,
    ).toBe(200);
  });
});
