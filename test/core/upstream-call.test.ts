// The one metered upstream call: the quota step by plan, the entry's channels (or the plan's), the retry policy,
// and the entitlement mark — the rules every upstream call of a client request goes through.
import { describe, expect, it, vi } from 'vitest';
import type { ModelEntry } from '../../src/catalogue/types.ts';
import type { RequestState } from '../../src/core/call.ts';
import { upstreamCall, type CallPlan, type UpstreamCallDeps } from '../../src/core/upstream-call.ts';
import { GatewayError } from '../../src/errors/gateway-error.ts';
import type { Channel } from '../../src/routing/channel-registry.ts';
import { CircuitBreakers } from '../../src/routing/circuit-breaker.ts';

const ch = (id: string): Channel => ({
  id,
  name: id,
  kind: 'dashscope',
  baseUrl: 'http://u',
  keys: { apiKey: 'k' },
  models: null,
  priority: 0,
  weight: 1,
  upstreamAccount: null,
  taskSlots: null,
  modelLimits: null,
});
const entry = { id: 'm1', upstreamModel: 'up-m1' } as ModelEntry;

function setup(channels: Channel[], quota: number | null, exhausted = false) {
  const marked: string[] = [];
  const meter = {
    price: vi.fn(() => ({ amount: 42, quantities: {}, unitPrices: {} })),
    reserve: vi.fn(async () =>
      exhausted ? Promise.reject(new GatewayError('insufficient_quota', 'spent')) : undefined,
    ),
    releaseReserved: vi.fn(async () => undefined),
    atBound: new Set<string>(),
  };
  const deps = {
    channels: {
      forModel: () => channels,
      markNotEntitled: (c: { id: string }, m: string, tenant: string) => marked.push(`${c.id}:${m}:${tenant}`),
    },
    breakers: new CircuitBreakers(),
    meter,
  } as unknown as UpstreamCallDeps;
  const state = {
    channelId: null,
    attempts: null,
    ttfbMs: null,
    principal: {
      tokenId: 'tok',
      name: 't',
      models: null,
      quota,
      rpmLimit: null,
      tpmLimit: null,
      concurrencyLimit: null,
      billing: null,
    },
    trace: null,
  } as unknown as RequestState;
  return { deps, meter, call: { id: 'req_1', state, log: { info: vi.fn(), warn: vi.fn(), error: vi.fn() } }, marked };
}

const estimate = () => ({ kind: 'images', images: 2 }) as const;
const plan = (p: Partial<CallPlan> = {}): CallPlan => ({ entry, retry: 'safe', quota: { reserve: estimate }, ...p });

describe('upstreamCall', () => {
  it('a reservation that does not fit refuses the call before any upstream attempt', async () => {
    const { deps, call } = setup([ch('a')], 100, true);
    const attempt = vi.fn(async () => 'ok');
    await expect(upstreamCall(deps, call, plan(), attempt)).rejects.toMatchObject({ code: 'insufficient_quota' });
    expect(attempt).not.toHaveBeenCalled();
    expect(call.state.reserved).toBeFalsy();
  });

  it('the estimate is priced by the entry and reserved under the request id; a failed call releases it', async () => {
    const { deps, meter, call } = setup([ch('a')], 100);
    await expect(upstreamCall(deps, call, plan(), async () => 'ok')).resolves.toBe('ok');
    expect(meter.price).toHaveBeenCalledWith('m1', estimate(), undefined);
    expect(meter.reserve).toHaveBeenCalledWith('req_1', 'tok', 42, null);
    expect(call.state.reserved).toBe(true);
    const failed = setup([ch('a')], 100);
    await expect(
      upstreamCall(failed.deps, failed.call, plan({ retry: 'connect-only' }), async () =>
        Promise.reject(new GatewayError('upstream_error', 'x')),
      ),
    ).rejects.toMatchObject({ code: 'upstream_error' });
    expect(failed.meter.releaseReserved).toHaveBeenCalledWith('req_1');
    expect(failed.call.state.reserved).toBe(false);
  });

  it("'held' and 'free' reserve nothing (the task engine's hold is the quota step); a token without a quota neither", async () => {
    for (const [quota, q] of [
      ['held', 100],
      ['free', 100],
      [{ reserve: estimate }, null],
    ] as const) {
      const { deps, meter, call } = setup([ch('a')], q, true);
      await expect(upstreamCall(deps, call, plan({ quota }), async () => 'ok')).resolves.toBe('ok');
      expect(meter.reserve).not.toHaveBeenCalled();
    }
  });

  it('a token without a quota that a charge was cut at (its balance at the bound) reserves: its hold is refused', async () => {
    const { deps, meter, call } = setup([ch('a')], null, true);
    meter.atBound.add('tok');
    await expect(
      upstreamCall(deps, call, plan({ quota: { reserve: estimate } }), async () => 'ok'),
    ).rejects.toMatchObject({ code: 'insufficient_quota' });
    expect(meter.reserve).toHaveBeenCalledWith('req_1', 'tok', 42, null);
  });

  it('no channel serves the model: no_channel', async () => {
    const { deps, call } = setup([], null);
    await expect(upstreamCall(deps, call, plan(), async () => 'ok')).rejects.toMatchObject({ code: 'no_channel' });
  });

  it("'safe' fails over on an upstream 5xx; 'connect-only' does not", async () => {
    for (const retry of ['safe', 'connect-only'] as const) {
      const { deps, call } = setup([ch('a'), ch('b')], null);
      const seen: string[] = [];
      const out = upstreamCall(deps, call, plan({ retry }), async (c) => {
        seen.push(c.id);
        if (seen.length === 1) throw new GatewayError('upstream_error', 'boom');
        return c.id;
      });
      if (retry === 'safe') expect(await out).toBe(seen[1]);
      else await expect(out).rejects.toMatchObject({ code: 'upstream_error' });
      expect(seen.length).toBe(retry === 'safe' ? 2 : 1);
    }
  });

  it("the plan's channels replace the entry's; a not-entitled refusal marks the channel for the upstream model and the calling tenant, and moves on", async () => {
    const { deps, call, marked } = setup([ch('x')], null);
    const seen: string[] = [];
    const out = await upstreamCall(
      deps,
      call,
      plan({ retry: 'connect-only', channels: [ch('a'), ch('b')] }),
      async (c) => {
        seen.push(c.id);
        if (seen.length === 1)
          throw new GatewayError('upstream_permission_denied', 'not entitled', { notEntitled: true });
        return c.id;
      },
    );
    expect(seen.every((id) => id === 'a' || id === 'b')).toBe(true);
    expect(out).toBe(seen[1]);
    // What was refused: the upstream model the call named, for the calling tenant.
    expect(marked).toEqual([`${seen[0]}:up-m1:tok:tok`]);
  });
});
