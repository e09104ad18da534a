// GET /admin/channels/{id}/capacity: the live state of the channel's upstream account — limits with where each comes
// from, this instance's use over the last minute, calls in flight and queued per customer — as the OpenAPI document
// describes it.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.ts';
import { until } from '../support/wait.ts';
import { chat, stateLimits } from './support.ts';

interface Live {
  channel_id: string;
  account: string;
  active: boolean;
  data: Array<
    Record<string, unknown> & { model: string; waiting: number; waiting_by_customer: Record<string, number> }
  >;
}

describe('the capacity of a channel, live', () => {
  // A queue wait far longer than the test: the queued calls stay until the test lets them go.
  const t = useHarness({ env: { TOLLWAY_QUEUE_WAIT_MS: '600000' } });

  it('shows the limits, the use and the queue per customer', async () => {
    const { h } = t;
    const list = (await (await h.admin('/admin/channels')).json()) as { data: Array<{ id: string; name: string }> };
    const id = list.data.find((c) => c.name === 'sim-dashscope')!.id;
    const read = async () => (await (await h.admin(`/admin/channels/${id}/capacity`)).json()) as Live;
    expect(await read()).toMatchObject({ channel_id: id, active: false, data: [] });

    await stateLimits(h, { '*': { rpm: 1, concurrency: 5 } });
    const a = await h.token({ name: 'a' });
    const b = await h.token({ name: 'b' });
    expect((await chat(h, a.secret)).status).toBe(200);
    const gone = new AbortController();
    const queued = [chat(h, a.secret, gone.signal), chat(h, b.secret, gone.signal), chat(h, b.secret, gone.signal)].map(
      (p) => p.catch(() => null),
    );
    await until(async () => (await read()).data[0]?.waiting === 3, 'three calls queued');
    const live = await read();
    expect(live).toMatchObject({ channel_id: id, active: true });
    expect(live.account).toMatch(/^dashscope:key-[0-9a-f]{16}$/);
    expect(live.data).toEqual([
      {
        model: 'qwen3.7-plus',
        limits: { rpm: 1, tpm: null, concurrency: 5 },
        source: { rpm: 'set', tpm: 'none', concurrency: 'set' },
        stated: { rpm: 1, tpm: null, concurrency: 5 },
        read: { rpm: null, tpm: null },
        learnt: { rpm: null, tpm: null },
        used: { requests: 1, tokens: expect.any(Number) },
        in_flight: 0,
        waiting: 3,
        waiting_by_customer: { [`token:${a.id}`]: 1, [`token:${b.id}`]: 2 },
        paused_until: null,
      },
    ]);
    gone.abort();
    await Promise.all(queued);
    await until(async () => (await read()).data[0]?.waiting === 0, 'the queue emptied');

    // The OpenAPI document names every field of an item.
    const doc = (await (await h.fetch('/openapi.json')).json()) as {
      paths: Record<
        string,
        {
          get?: {
            responses: Record<string, { content: Record<string, { schema: { properties: Record<string, unknown> } }> }>;
          };
        }
      >;
    };
    const schema =
      doc.paths['/admin/channels/{id}/capacity']!.get!.responses['200']!.content['application/json']!.schema;
    expect(Object.keys(schema.properties).sort()).toEqual(['account', 'active', 'channel_id', 'data']);
    const item = (schema.properties.data as { items: { properties: Record<string, unknown> } }).items;
    expect(Object.keys(item.properties).sort()).toEqual(Object.keys(live.data[0]!).sort());
    await stateLimits(h, null);
  });
});
