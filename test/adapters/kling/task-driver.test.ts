// The Kling task driver's lost-submit lookup against two simulated Kling accounts: a creation is found by our task id
// (its external_task_id) on the stored channel or on another account (a connect-only failover moved it), is
// reported absent only when every account says 1203, and an account that cannot answer makes it "cannot tell".
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SIM_KEYS } from '../../../simulator/index.ts';
import { UpstreamClient } from '../../../src/adapters/http-client.ts';
import { KlingClient } from '../../../src/adapters/kling/client.ts';
import { KlingJwtSigner } from '../../../src/adapters/kling/jwt.ts';
import { KlingTaskDriver } from '../../../src/adapters/kling/task-driver.ts';
import { text2VideoBody } from '../../../src/adapters/kling/text2video.ts';
import { text2videoRules } from '../../../src/catalogue/vidx-endpoints.ts';
import type { Channel } from '../../../src/routing/channel-registry.ts';
import type { TaskRecord } from '../../../src/tasks/types.ts';
import { useSimulator } from '../../support/simulator.ts';

const B_KEYS = { klingAccessKey: 'ak-account-b', klingSecretKey: 'sk-account-b-0123456789abcdef' };
const a = useSimulator({ taskDurationMs: 200 });
const b = useSimulator({ taskDurationMs: 200, ...B_KEYS });
const upstream = new UpstreamClient();
afterAll(() => upstream.close());
const client = new KlingClient(upstream, new KlingJwtSigner());

const channel = (id: string, baseUrl: string, accessKey: string, secretKey: string): Channel => ({
  id,
  name: id,
  kind: 'kling',
  baseUrl,
  keys: { accessKey, secretKey },
  models: null,
  priority: 0,
  weight: 1,
  upstreamAccount: null,
  taskSlots: null,
  modelLimits: null,
});
const chA = () => channel('ch_a', a.sim.url, DEFAULT_SIM_KEYS.klingAccessKey, DEFAULT_SIM_KEYS.klingSecretKey);
const chB = () => channel('ch_b', b.sim.url, B_KEYS.klingAccessKey, B_KEYS.klingSecretKey);
const task = (id: string) => ({ id, upstreamTaskId: null, tier: 'std' }) as TaskRecord;
const limit = () => ({ timeoutMs: 5000 });

/** Create the task on `ch` as the gateway does: our id as the upstream external_task_id. */
async function createOn(ch: Channel, ourId: string): Promise<string> {
  const r = await client.call(
    ch,
    'POST',
    '/v1/videos/text2video',
    text2VideoBody(
      { prompt: 'a kite', mode: 'std', aspectRatio: '16:9', duration: 5 },
      'kling-v1',
      text2videoRules(),
      ourId,
      null,
    ),
  );
  return (r.data as { task_id: string }).task_id;
}

describe('KlingTaskDriver.recoverSubmit', () => {
  it('finds the task on the stored channel by our id, with the upstream task id and that channel', async () => {
    const upstreamId = await createOn(chA(), 'task_on_a');
    const found = await new KlingTaskDriver(client, 'text2video', () => [chA(), chB()]).recoverSubmit(
      task('task_on_a'),
      chA(),
      limit(),
    );
    expect(found).toMatchObject({ upstreamTaskId: upstreamId, channelId: 'ch_a' });
    expect(['queued', 'in_progress']).toContain(found?.state);
    expect(found?.upstreamRequestId).toBeTruthy();
  });

  it('finds it on another Kling account when the stored one has no such task', async () => {
    const upstreamId = await createOn(chB(), 'task_on_b');
    const found = await new KlingTaskDriver(client, 'text2video', () => [chA(), chB()]).recoverSubmit(
      task('task_on_b'),
      chA(),
      limit(),
    );
    expect(found).toMatchObject({ upstreamTaskId: upstreamId, channelId: 'ch_b' });
    // Without the other accounts it is not found (so the lookup across accounts is what found it).
    expect(await new KlingTaskDriver(client, 'text2video').recoverSubmit(task('task_on_b'), chA(), limit())).toBeNull();
  });

  it('absent on every account → null; an account that cannot answer → throws (cannot tell), never null', async () => {
    const driver = new KlingTaskDriver(client, 'text2video', () => [chA(), chB()]);
    expect(await driver.recoverSubmit(task('task_nowhere'), chA(), limit())).toBeNull();
    b.sim.faults.add({ kind: 'status', arg: 503, path: '/v1/videos/text2video/task_nowhere', times: 1 });
    await expect(driver.recoverSubmit(task('task_nowhere'), chA(), limit())).rejects.toMatchObject({
      code: 'upstream_error',
    });
    // The task path matters: a text2video id is not looked up among omni-video tasks.
    await createOn(chA(), 'task_t2v');
    expect(
      await new KlingTaskDriver(client, 'omni-video', () => [chA()]).recoverSubmit(task('task_t2v'), chA(), limit()),
    ).toBeNull();
  });
});

describe('KlingTaskDriver.pollMany', () => {
  it('an item it cannot read is left out (polled alone later); the other tasks of the page are answered', async () => {
    const page = [
      { task_id: 'up_1', task_status: 'processing' },
      { task_id: 'up_2', task_status: 'warming-up' },
      { task_id: 'up_3', task_status: 42 },
      { task_id: 'up_4', task_status: 'failed', task_status_msg: 'bad prompt' },
    ];
    const listing = { call: async () => ({ data: page, upstreamRequestId: 'req-list' }) } as unknown as KlingClient;
    const tasks = ['up_1', 'up_2', 'up_3', 'up_4'].map(
      (u, i) => ({ id: `task_${i}`, upstreamTaskId: u, tier: 'std' }) as TaskRecord,
    );
    const out = await new KlingTaskDriver(listing, 'text2video').pollMany(tasks, chA(), limit());
    expect([...out.keys()].sort()).toEqual(['up_1', 'up_4']);
    expect(out.get('up_1')?.state).toBe('in_progress');
    expect(out.get('up_4')).toMatchObject({
      state: 'failed',
      error: { message: 'The upstream task failed', upstreamMessage: 'bad prompt' },
    });
  });
});
