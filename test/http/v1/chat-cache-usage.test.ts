// Cache usage fields on the chat-style API: prompt_tokens_details.cached_tokens and
// prompt_tokens_details.cache_creation_input_tokens reach the client unchanged (streaming and not), and the
// ledger records the same quantities from the upstream usage (responses and messages have their own tests).
import type OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { openaiClient } from '../../support/sdk.ts';
import { sseEvents } from '../../support/sse.ts';
import { ledgerRows } from '../../support/store-rows.ts';

const t = useHarness();
let client: OpenAI;
beforeAll(() => {
  client = openaiClient(t.h, t.token);
});

// Long enough for the simulated implicit cache (512+ input tokens).
const LONG = Array.from({ length: 900 }, (_, i) => `w${i}`).join(' ');
// Below the implicit-cache threshold: with cache_control the simulator reports only a cache write. (With both
// an implicit hit and a write it reports more cached + written tokens than input; the meter clamps that.)
const SHORT = Array.from({ length: 300 }, (_, i) => `s${i}`).join(' ');
type Details = { cached_tokens?: number; cache_creation_input_tokens?: number };

describe('chat usage cache fields', () => {
  it('non-streaming: cached_tokens preserved in usage and recorded in the ledger', async () => {
    const { data, response } = await client.chat.completions
      .create({ model: 'qwx3.7-plus', messages: [{ role: 'user', content: LONG }] })
      .withResponse();
    const details = data.usage!.prompt_tokens_details as Details;
    expect(details.cached_tokens).toBeGreaterThan(0);
    const [row] = await ledgerRows(t.h, response.headers.get('x-gateway-request-id')!);
    const q = JSON.parse(row!.quantities) as { input_tokens: number; cached_tokens: number };
    expect(q.input_tokens).toBe(data.usage!.prompt_tokens);
    expect(q.cached_tokens).toBe(details.cached_tokens);
  });

  it('explicit cache (cache_control on a part): cache_creation_input_tokens preserved and recorded', async () => {
    const { data, response } = await client.chat.completions
      .create({
        model: 'qwx3.7-plus',
        messages: [
          { role: 'user', content: [{ type: 'text', text: SHORT, cache_control: { type: 'ephemeral' } } as never] },
        ],
      })
      .withResponse();
    const sent = t.h.sim.requestsTo('/compatible-mode/v1/chat/completions').at(-1)!;
    expect(JSON.stringify(sent.body)).toContain('cache_control');
    const details = data.usage!.prompt_tokens_details as Details;
    expect(details.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(details.cached_tokens ?? 0).toBe(0);
    const [row] = await ledgerRows(t.h, response.headers.get('x-gateway-request-id')!);
    const q = JSON.parse(row!.quantities) as { cache_creation_tokens: number };
    expect(q.cache_creation_tokens).toBe(details.cache_creation_input_tokens);
  });

  it('streaming with include_usage: the usage chunk carries the cache fields', async () => {
    const r = await t.h.fetch('/v1/chat/completions', {
      method: 'POST',
      token: t.token,
      json: {
        model: 'qwx3.7-plus',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: LONG }],
      },
    });
    expect(r.status).toBe(200);
    const chunks = sseEvents(await r.text())
      .filter((e) => e.data !== '[DONE]')
      .map((e) => JSON.parse(e.data) as { usage?: { prompt_tokens: number; prompt_tokens_details?: Details } | null });
    const usage = chunks.map((c) => c.usage).find((u) => u);
    expect(usage?.prompt_tokens_details?.cached_tokens).toBeGreaterThan(0);
    const [row] = await ledgerRows(t.h, r.headers.get('x-gateway-request-id')!);
    expect((JSON.parse(row!.quantities) as { cached_tokens: number }).cached_tokens).toBe(
      usage!.prompt_tokens_details!.cached_tokens,
    );
  });
});
