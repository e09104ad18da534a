// Several gateway instances on one store: an admin change made through one instance applies on the
// others — at once through Redis pub/sub, and through the periodic refresh without Redis.
import { describe, expect, it } from 'vitest';
import { parseClusterEvent } from '../../src/cluster/cluster-bus.ts';
import { useHarness, type GatewayInstance, type Harness } from '../support/harness.ts';
import { eventually } from '../support/wait.ts';

const redisUrl = process.env.TEST_REDIS_URL;

/** A second gateway instance on the first one's store and config (plus overrides), without a task poller. */
function secondInstance(h: Harness, over: Partial<Harness['config']>): Promise<GatewayInstance> {
  return h.instance({ ...over, tasks: { ...h.config.tasks, pollerEnabled: false } });
}

const models = async (url: string, token: string) => {
  const r = await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${token}` } });
  return {
    status: r.status,
    ids: r.status === 200 ? ((await r.json()) as { data: Array<{ id: string }> }).data.map((m) => m.id) : [],
  };
};

describe('cluster event parsing', () => {
  it('accepts only well-formed events', () => {
    const hash = 'a'.repeat(64);
    expect(parseClusterEvent(JSON.stringify({ from: 'x', event: { kind: 'token-revoked', hash } }))).toEqual({
      from: 'x',
      event: { kind: 'token-revoked', hash },
    });
    expect(parseClusterEvent(JSON.stringify({ from: 'x', event: { kind: 'channels-changed' } }))?.event.kind).toBe(
      'channels-changed',
    );
    expect(parseClusterEvent(JSON.stringify({ from: 'x', event: { kind: 'token-changed', hashes: [hash] } }))).toEqual({
      from: 'x',
      event: { kind: 'token-changed', hashes: [hash] },
    });
    // With the token's id: its allowances are retired there too.
    expect(
      parseClusterEvent(
        JSON.stringify({ from: 'x', event: { kind: 'token-changed', hashes: [hash], id: 'tok_abc123' } }),
      )?.event,
    ).toEqual({
      kind: 'token-changed',
      hashes: [hash],
      id: 'tok_abc123',
    });
    for (const bad of [
      JSON.stringify({ from: 'x', event: { kind: 'token-changed', hashes: [hash], id: 'acc_abc' } }),
      JSON.stringify({ from: 'x', event: { kind: 'token-changed', hashes: [hash], id: 7 } }),
      JSON.stringify({ from: 'x', event: { kind: 'token-changed', hashes: ['short'] } }),
      JSON.stringify({ from: 'x', event: { kind: 'token-changed', hashes: hash } }),
      'nope',
      '{}',
      JSON.stringify({ from: 'x', event: { kind: 'token-revoked', hash: 'short' } }),
      JSON.stringify({ from: 1, event: { kind: 'channels-changed' } }),
      JSON.stringify({ from: 'x', event: { kind: 'drop-tables' } }),
    ]) {
      expect(parseClusterEvent(bad)).toBeNull();
    }
  });
});

describe.runIf(redisUrl)('two instances sharing Redis', () => {
  const t = useHarness({ env: { REDIS_URL: redisUrl ?? '', TOLLWAY_REFRESH_MS: '0' } });

  it('a revoke, a channel disable and a price change through instance A apply on instance B at once', async () => {
    const h = t.h;
    const b = await secondInstance(h, {});
    const tok = (await (await h.admin('/admin/tokens', { method: 'POST', json: { name: 'cluster' } })).json()) as {
      id: string;
      token: string;
    };
    // B has the token cached as valid.
    expect((await models(b.url, tok.token)).status).toBe(200);
    expect((await models(b.url, tok.token)).ids).toContain('qwx3.7-plus');

    const channels = (await (await h.admin('/admin/channels')).json()) as { data: Array<{ id: string; kind: string }> };
    const dash = channels.data.find((c) => c.kind === 'dashscope')!;
    expect((await h.admin(`/admin/channels/${dash.id}`, { method: 'DELETE' })).status).toBe(200);
    expect(await eventually(async () => !(await models(b.url, tok.token)).ids.includes('qwx3.7-plus'), 2000)).toBe(
      true,
    );

    expect(
      (
        await h.admin('/admin/prices/qwx-image-2.0', {
          method: 'PUT',
          json: { price: { unit: 'image', perImage: 123_456 } },
        })
      ).status,
    ).toBe(200);
    expect(
      await eventually(
        async () =>
          b.gw.deps.catalogue.get('qwx-image-2.0')?.price.unit === 'image' &&
          (b.gw.deps.catalogue.get('qwx-image-2.0')!.price as { perImage: number }).perImage === 123_456,
        2000,
      ),
    ).toBe(true);

    expect((await h.admin(`/admin/tokens/${tok.id}`, { method: 'DELETE' })).status).toBe(200);
    // Well inside the 5 s cache TTL: only the bus can have told B.
    expect(await eventually(async () => (await models(b.url, tok.token)).status === 401, 1000)).toBe(true);
  });
});

describe.runIf(redisUrl)('token changes across instances sharing Redis', () => {
  const t = useHarness({ env: { REDIS_URL: redisUrl ?? '', TOLLWAY_REFRESH_MS: '0' } });

  it('an edit and a rotation through instance A apply on instance B at once (B had the token cached)', async () => {
    const h = t.h;
    const b = await secondInstance(h, {});
    const tok = (await (await h.admin('/admin/tokens', { method: 'POST', json: { name: 'cluster-edit' } })).json()) as {
      id: string;
      token: string;
    };
    expect((await models(b.url, tok.token)).ids.length).toBeGreaterThan(1);
    expect(
      (await h.admin(`/admin/tokens/${tok.id}`, { method: 'PATCH', json: { models: ['qwx3.7-plus'] } })).status,
    ).toBe(200);
    // Well inside the 5 s cache TTL: only the bus can have told B.
    expect(await eventually(async () => (await models(b.url, tok.token)).ids.join() === 'qwx3.7-plus', 1000)).toBe(
      true,
    );
    const rotated = (await (await h.admin(`/admin/tokens/${tok.id}/rotate`, { method: 'POST' })).json()) as {
      token: string;
    };
    expect(await eventually(async () => (await models(b.url, tok.token)).status === 401, 1000)).toBe(true);
    expect((await models(b.url, rotated.token)).ids).toEqual(['qwx3.7-plus']);
  });
});

describe('two instances without Redis', () => {
  const t = useHarness({ env: { TOLLWAY_REFRESH_MS: '100' } });

  it('channel changes reach the other instance through the periodic refresh', async () => {
    const h = t.h;
    const b = await secondInstance(h, { refreshMs: 100, redisUrl: undefined });
    const { secret } = await h.token();
    expect((await models(b.url, secret)).ids).toContain('vidx-v1');
    const channels = (await (await h.admin('/admin/channels')).json()) as { data: Array<{ id: string; kind: string }> };
    const kling = channels.data.find((c) => c.kind === 'kling')!;
    expect((await h.admin(`/admin/channels/${kling.id}`, { method: 'DELETE' })).status).toBe(200);
    expect(await eventually(async () => !(await models(b.url, secret)).ids.includes('vidx-v1'), 3000)).toBe(true);
  });
});
