// Every model of the text-to-video allow-list is admitted on /vidx/v1/videos/text2video and sent
// upstream under its catalogue upstream name (the validation table admits only one of them explicitly).
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { call, type TaskData, vidxHarness } from '../../support/vidx.ts';

const ALLOWED = ['vidx-video-o1', 'vidx-v1', 'vidx-v1-5', 'vidx-v1-6', 'vidx-v2-master', 'vidx-v2-1', 'vidx-v2-1-master', 'vidx-v2-5-turbo', 'vidx-v2-6', 'vidx-v3'];

const t = useHarness(vidxHarness());

describe('text2video model allow-list', () => {
  it.each(ALLOWED)('%s is admitted and sent upstream by its catalogue name', async (model) => {
    const r = await call<TaskData>(t.h, t.token, 'POST', '/vidx/v1/videos/text2video', { model_name: model, prompt: `allowed ${model}` });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ code: 0, message: 'success', data: { task_status: 'submitted' } });
    const up = t.h.sim.requestsTo('/v1/videos/text2video').filter((x) => x.method === 'POST' && JSON.stringify(x.body).includes(`allowed ${model}"`));
    expect(up).toHaveLength(1);
    const upstreamName = (up[0]!.body as { model_name: string }).model_name;
    expect(upstreamName).toBe(t.h.gw.deps.catalogue.resolve(model)!.upstreamModel);
    // Stand-in public names are never written upstream.
    expect(upstreamName.startsWith('vidx')).toBe(false);
    const q = await call<TaskData>(t.h, t.token, 'GET', `/vidx/v1/videos/text2video/${r.body.data.task_id}`);
    expect(q.body.data.model_name).toBe(model);
  });
});
