// A task driver's status query is bounded by the limit the poller passes (the HTTP client's time limits, no timer
// per query): against the simulator's `timeout` fault (it never answers), a DashScope and a Kling poll each fail
// as an upstream timeout once the limit has passed, instead of holding the task's lease for the default 20–60 s.
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SIM_KEYS } from '../../simulator/index.ts';
import { UpstreamClient } from '../../src/adapters/http-client.ts';
import { DashscopeVideoDriver } from '../../src/adapters/dashscope/video-driver.ts';
import { KlingClient } from '../../src/adapters/kling/client.ts';
import { KlingJwtSigner } from '../../src/adapters/kling/jwt.ts';
import { KlingTaskDriver } from '../../src/adapters/kling/task-driver.ts';
import type { Channel } from '../../src/routing/channel-registry.ts';
import { upstreamAccountOf } from '../../src/routing/upstream-account.ts';
import type { TaskRecord } from '../../src/tasks/types.ts';
import { useSimulator } from '../support/simulator.ts';

const s = useSimulator({ taskDurationMs: 60_000 });
const upstream = new UpstreamClient();
afterAll(() => upstream.close());

const task = { id: 'task_1', upstreamTaskId: 'up_1', tier: '1080p', billingModel: 'm' } as TaskRecord;
const limit = { timeoutMs: 300 };

describe('a poll is bounded by its limit', () => {
  it('DashScope: a status query that never answers fails as upstream_timeout', async () => {
    s.sim.faults.add({ kind: 'timeout', path: '/api/v1/tasks/', times: 1 });
    const ch: Channel = {
      id: 'ch',
      name: 'ch',
      kind: 'dashscope',
      baseUrl: s.sim.url,
      keys: { apiKey: DEFAULT_SIM_KEYS.dashscopeApiKey },
      models: null,
      priority: 0,
      weight: 1,
      upstreamAccount: null,
      taskSlots: null,
      modelLimits: null,
    };
    // Within the test's own time limit (5 s), far below the client's default (20 s): the limit passed in applied.
    await expect(new DashscopeVideoDriver(upstream, upstreamAccountOf).poll(task, ch, limit)).rejects.toMatchObject({
      code: 'upstream_timeout',
    });
  });

  it('Kling: a status query that never answers fails as upstream_timeout', async () => {
    s.sim.faults.add({ kind: 'timeout', path: '/v1/videos/text2video/', times: 1 });
    const ch: Channel = {
      id: 'ck',
      name: 'ck',
      kind: 'kling',
      baseUrl: s.sim.url,
      keys: { accessKey: DEFAULT_SIM_KEYS.klingAccessKey, secretKey: DEFAULT_SIM_KEYS.klingSecretKey },
      models: null,
      priority: 0,
      weight: 1,
      upstreamAccount: null,
      taskSlots: null,
      modelLimits: null,
    };
    await expect(
      new KlingTaskDriver(new KlingClient(upstream, new KlingJwtSigner()), 'text2video').poll(task, ch, limit),
    ).rejects.toMatchObject({
      code: 'upstream_timeout',
    });
  });
});
