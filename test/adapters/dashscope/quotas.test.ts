import { describe, expect, it } from 'vitest';
import { DEFAULT_SIM_KEYS } from '../../../simulator/index.ts';
import { SIM_DASHSCOPE_MODELS } from '../../../simulator/dashscope/compat-models.ts';
import { dashscope } from '../../../src/adapters/dashscope/index.ts';
import { parseQuotaPage } from '../../../src/adapters/dashscope/quota-answer.ts';
import { UpstreamClient } from '../../../src/adapters/http-client.ts';
import type { UpstreamClients } from '../../../src/adapters/upstream.ts';
import type { Channel } from '../../../src/routing/channel-registry.ts';
import { useSimulator } from '../../support/simulator.ts';

const channel = (baseUrl: string, apiKey = DEFAULT_SIM_KEYS.dashscopeApiKey): Channel => ({
  id: 'c1',
  name: 'c1',
  kind: 'dashscope',
  baseUrl,
  keys: { apiKey },
  models: null,
  priority: 0,
  weight: 1,
  upstreamAccount: null,
  taskSlots: null,
  modelLimits: null,
});

// 130 models besides the simulator's own: the answer spans two pages of 100.
const extra = Object.fromEntries(Array.from({ length: 130 }, (_v, i) => [`sim-extra-${i}`, { rpm: i + 1 }]));
const up = useSimulator({
  dashscopeRpm: 300,
  dashscopeTpm: 500_000,
  dashscopeModelLimits: { 'qwen3.7-plus': { rpm: 60, tpm: 10_000 }, ...extra },
});

describe('DashScope readLimits (GET /api/v1/quotas)', () => {
  const clients = { upstream: new UpstreamClient() } as unknown as UpstreamClients;

  it("reads every model's requests and tokens per minute under the key, over all pages, keyed by upstream model", async () => {
    const limits = await dashscope.readLimits!(clients, channel(up.sim.url));
    expect(limits.get('qwen3.7-plus')).toEqual({ rpm: 60, tpm: 10_000 });
    expect(limits.get('text-embedding-v4')).toEqual({ rpm: 300, tpm: 500_000 });
    expect(limits.get('sim-extra-129')).toEqual({ rpm: 130, tpm: 500_000 });
    expect(limits.size).toBe(SIM_DASHSCOPE_MODELS.length + 130);
    const pages = up.sim
      .requestsTo('/api/v1/quotas')
      .map((r) => new URL(r.path, 'http://x').searchParams.get('page_no'));
    expect(pages).toEqual(['1', '2']);
  });

  it('throws a GatewayError when the list cannot be read: a refused key, an unreachable host', async () => {
    await expect(dashscope.readLimits!(clients, channel(up.sim.url, 'sk-wrong'))).rejects.toMatchObject({
      name: 'GatewayError',
      code: 'upstream_auth_error',
    });
    await expect(dashscope.readLimits!(clients, channel('http://127.0.0.1:1'))).rejects.toMatchObject({
      name: 'GatewayError',
      code: 'upstream_unreachable',
    });
  });
});

describe('the quota answer, read tolerantly', () => {
  const limit = (o: Record<string, unknown>) => ({
    request_limit: null,
    request_limit_period: 60,
    usage_limit: null,
    usage_limit_field: 'total_tokens',
    usage_limit_period: 60,
    ...o,
  });

  it('per second ×60; the smaller of the account and workspace limits; numbers as strings; no limit as null', () => {
    const page = parseQuotaPage({
      request_id: 'r',
      output: {
        total: 3,
        page_no: 1,
        page_size: 20,
        quotas: [
          {
            model: 'a',
            model_limit: limit({ request_limit: 5, request_limit_period: 1, usage_limit: 1000, usage_limit_period: 1 }),
            workspace_limit: null,
          },
          {
            model: 'b',
            model_limit: limit({ request_limit: '600', usage_limit: 90_000 }),
            workspace_limit: limit({ request_limit: 120, usage_limit: 100_000 }),
          },
          { model: 'c', model_limit: limit({}), workspace_limit: null },
        ],
      },
    });
    expect(page).toEqual({
      entries: [
        ['a', { rpm: 300, tpm: 60_000 }],
        ['b', { rpm: 120, tpm: 90_000 }],
        ['c', { rpm: null, tpm: null }],
      ],
      total: 3,
      pageSize: 20,
    });
  });

  it('a usage limit of something other than tokens is no token limit; flat rpm/tpm/qps fields; the list under data', () => {
    expect(
      parseQuotaPage({
        output: {
          quotas: [
            {
              model: 'img',
              model_limit: limit({ request_limit: 2, usage_limit: 50, usage_limit_field: 'image_count' }),
            },
          ],
        },
      })?.entries,
    ).toEqual([['img', { rpm: 2, tpm: null }]]);
    expect(
      parseQuotaPage({ data: [{ model_name: 'x', qps: 2, tpm: 1000 }, { model: 'y', RPM: 30 }, { nothing: true }] })
        ?.entries,
    ).toEqual([
      ['x', { rpm: 120, tpm: 1000 }],
      ['y', { rpm: 30, tpm: null }],
    ]);
  });

  it('an answer with no list is not read', () => {
    expect(parseQuotaPage({ output: { total: 0 } })).toBeNull();
    expect(parseQuotaPage('nope')).toBeNull();
    expect(parseQuotaPage({ output: { quotas: [] } })).toEqual({ entries: [], total: null, pageSize: null });
  });
});
