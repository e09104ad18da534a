// The simulator's Kling parallel-task limit per account and model version (code 1303): set per test, on by default.
import { describe, expect, it } from 'vitest';
import { klingState } from '../../simulator/kling/index.ts';
import { useSimulator } from '../support/simulator.ts';
import { klingJwt as jwt, type KlingEnvelope as Env } from '../support/kling-sim.ts';

describe('kling simulator: parallel tasks per account and model version (1303)', () => {
  const lim = useSimulator({ taskDurationMs: 300, klingTaskSlots: 2 });
  const post = async (body: unknown, path = '/v1/videos/text2video') => {
    const r = await fetch(lim.sim.url + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${await jwt()}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: r.status, body: (await r.json()) as Env };
  };
  const tasksNow = () => klingState(lim.sim.ctx).tasks.size;
  const ended = async (id: string, status: string) => {
    for (let i = 0; i < 100; i++) {
      const r = await fetch(`${lim.sim.url}/v1/videos/text2video/${id}`, {
        headers: { authorization: `Bearer ${await jwt()}` },
      });
      if (((await r.json()) as Env).data?.task_status === status) return;
      await new Promise((res) => setTimeout(res, 30));
    }
    throw new Error(`never reached ${status}`);
  };

  it('over the limit a creation gets 429 code 1303 and creates nothing; another model version has its own slots', async () => {
    expect((await post({ model_name: 'kling-v2-6', prompt: 'a' })).body.code).toBe(0);
    expect((await post({ model_name: 'kling-v2-6', prompt: 'b' })).body.code).toBe(0);
    const before = tasksNow();
    const over = await post({ model_name: 'kling-v2-6', prompt: 'c', external_task_id: 'over-1' });
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ code: 1303, message: 'parallel task over resource pack limit' });
    expect(tasksNow()).toBe(before);
    // Nothing was created: the refused external id is free.
    expect(klingState(lim.sim.ctx).byExternal.has('over-1')).toBe(false);
    expect((await post({ model_name: 'kling-v2-5-turbo', prompt: 'other version' })).body.code).toBe(0);
    expect(
      (await post({ model_name: 'kling-video-o1', prompt: 'omni', aspect_ratio: '16:9' }, '/v1/videos/omni-video')).body
        .code,
    ).toBe(0);
  });

  it('a slot is held until the task ends (a failure frees it too), then a creation is taken again', async () => {
    const first = await post({ model_name: 'kling-v2-1-master', prompt: 'x sim-fault:fail-task' });
    const second = await post({ model_name: 'kling-v2-1-master', prompt: 'y' });
    expect([first.body.code, second.body.code]).toEqual([0, 0]);
    expect((await post({ model_name: 'kling-v2-1-master', prompt: 'z' })).body.code).toBe(1303);
    await ended(first.body.data!.task_id!, 'failed');
    await ended(second.body.data!.task_id!, 'succeed');
    expect((await post({ model_name: 'kling-v2-1-master', prompt: 'now free' })).body.code).toBe(0);
    expect(klingState(lim.sim.ctx).slots.peak.get('kling-v2-1-master')).toBe(2);
  });

  it('the limit is set per test: by option, at run time through /__sim/kling/task-slots, and 0 lifts it', async () => {
    const set = async (slots: unknown) =>
      fetch(`${lim.sim.url}/__sim/kling/task-slots`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ slots }),
      });
    expect((await set(-1)).status).toBe(400);
    expect((await set(0)).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await post({ model_name: 'kling-v3', prompt: `free ${i}` })).body.code).toBe(0);
    expect((await set(4)).status).toBe(200);
    expect((await post({ model_name: 'kling-v3', prompt: 'fifth' })).body.code).toBe(1303);
    lim.sim.ctx.opts.klingTaskSlots = 2;
  });
});

describe('kling simulator: the parallel-task limit is on by default', () => {
  const d = useSimulator({ taskDurationMs: 60_000 });
  it('refuses the creation past 5 open tasks of one model version (DEFAULT_KLING_TASK_SLOTS)', async () => {
    const post = async (prompt: string) => {
      const r = await fetch(`${d.sim.url}/v1/videos/text2video`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await jwt()}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model_name: 'kling-v2-6', prompt }),
      });
      return ((await r.json()) as Env).code;
    };
    const codes: number[] = [];
    for (let i = 0; i < 6; i++) codes.push(await post(`p${i}`));
    expect(codes).toEqual([0, 0, 0, 0, 0, 1303]);
  });
});
