// The simulated DashScope video synthesis: async-only submit, per-model media rules, the task state
// machine with its faults, usage keys per family, and expiring result files honouring Range.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIM_KEYS } from '../../simulator/index.ts';
import { SIM_VIDEO_BYTES } from '../../simulator/dashscope/results-video.ts';
import { useSimulator } from '../support/simulator.ts';

const s = useSimulator({ taskDurationMs: 150 });

const auth = { authorization: `Bearer ${DEFAULT_SIM_KEYS.dashscopeApiKey}` };
const PATH = '/api/v1/services/aigc/video-generation/video-synthesis';

async function submit(body: unknown, async = true) {
  const r = await fetch(s.sim.url + PATH, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', ...(async ? { 'x-dashscope-async': 'enable' } : {}) },
    body: JSON.stringify(body),
  });
  return {
    status: r.status,
    json: (await r.json()) as { output?: { task_id: string; task_status: string }; code?: string; message?: string },
  };
}

async function query(id: string) {
  const r = await fetch(`${s.sim.url}/api/v1/tasks/${id}`, { headers: auth });
  return (await r.json()) as { output: Record<string, unknown>; usage?: Record<string, unknown> };
}

async function until(id: string, statuses: string[]) {
  for (let i = 0; i < 100; i++) {
    const q = await query(id);
    if (statuses.includes(q.output.task_status as string)) return q;
    await new Promise((r) => setTimeout(r, 60));
  }
  throw new Error(`task never reached ${statuses.join('/')}`);
}

describe('simulated video synthesis', () => {
  it('refuses synchronous calls (no X-DashScope-Async)', async () => {
    const r = await submit({ model: 'wan2.7-t2v', input: { prompt: 'x' } }, false);
    expect(r.status).toBe(403);
    expect(r.json.message).toMatch(/does not support synchronous calls/);
  });

  it('rejects bad media per model', async () => {
    for (const body of [
      { model: 'happyhorse-1.1-i2v', input: { prompt: 'x', media: [] } },
      {
        model: 'happyhorse-1.1-r2v',
        input: {
          prompt: 'x',
          media: Array.from({ length: 10 }, () => ({ type: 'reference_image', url: 'https://a/b.png' })),
        },
      },
      {
        model: 'wan2.7-i2v',
        input: {
          media: [
            { type: 'first_frame', url: 'https://a/b.png' },
            { type: 'first_clip', url: 'https://a/b.mp4' },
          ],
        },
      },
      {
        model: 'happyhorse-1.0-video-edit',
        input: { prompt: 'x', media: [{ type: 'video', url: 'https://a/b.mp4' }] },
        parameters: { duration: 5 },
      },
      { model: 'happyhorse-1.1-t2v', input: { prompt: 'x' }, parameters: { duration: 2 } },
      { model: 'nope-t2v', input: { prompt: 'x' } },
    ]) {
      const r = await submit(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json.code).toBe('InvalidParameter');
    }
  });

  it('PENDING → RUNNING → SUCCEEDED with HappyHorse usage (duration, in/out, SR) and a result URL', async () => {
    const r = await submit({
      model: 'happyhorse-1.1-t2v',
      input: { prompt: 'horse' },
      parameters: { duration: 4, ratio: '16:9' },
    });
    expect(r.status).toBe(200);
    expect(r.json.output?.task_status).toBe('PENDING');
    const id = r.json.output!.task_id;
    expect((await query(id)).output.task_status).toMatch(/PENDING|RUNNING/);
    const done = await until(id, ['SUCCEEDED']);
    expect(done.usage).toMatchObject({
      duration: 4,
      output_video_duration: 4,
      input_video_duration: 0,
      SR: 1080,
      video_count: 1,
      ratio: '16:9',
    });
    expect(done.output.video_url).toMatch(/\.mp4\?Expires=\d+/);
  });

  it('edit usage: duration = input + output; Wan reports video_duration with SR as a string', async () => {
    const e = await submit({
      model: 'happyhorse-1.0-video-edit',
      input: { prompt: 'x', media: [{ type: 'video', url: 'https://a/b.mp4' }] },
      parameters: { resolution: '720P' },
    });
    const ed = await until(e.json.output!.task_id, ['SUCCEEDED']);
    expect(ed.usage).toMatchObject({
      duration: 13.24,
      input_video_duration: 6.62,
      output_video_duration: 6.62,
      SR: 720,
    });
    const w = await submit({ model: 'wan2.7-t2v-20260115', input: { prompt: 'x' }, parameters: { duration: 3 } });
    const wd = await until(w.json.output!.task_id, ['SUCCEEDED']);
    expect(wd.usage).toMatchObject({ video_count: 1, video_duration: 3, SR: '1080' });
  });

  it('faults: fail-task → FAILED with code/message; vanish → UNKNOWN; stay-running never ends; unknown id → UNKNOWN', async () => {
    const f = await submit({ model: 'wan2.7-t2v', input: { prompt: 'x sim-fault:fail-task' } });
    const failed = await until(f.json.output!.task_id, ['FAILED', 'SUCCEEDED']);
    expect(failed.output).toMatchObject({ task_status: 'FAILED', code: 'InternalError.Algo' });
    const v = await submit({ model: 'wan2.7-t2v', input: { prompt: 'x sim-fault:vanish' } });
    expect((await until(v.json.output!.task_id, ['UNKNOWN', 'SUCCEEDED'])).output.task_status).toBe('UNKNOWN');
    const s = await submit({ model: 'wan2.7-t2v', input: { prompt: 'x sim-fault:stay-running' } });
    await new Promise((r) => setTimeout(r, 300));
    expect((await query(s.json.output!.task_id)).output.task_status).toBe('RUNNING');
    expect((await query('no-such-task')).output.task_status).toBe('UNKNOWN');
  });

  it('result file: 200 whole, 206 for a Range, 416 outside, 403 once expired', async () => {
    const r = await submit({ model: 'wan2.7-t2v', input: { prompt: 'x' } });
    const done = await until(r.json.output!.task_id, ['SUCCEEDED']);
    const url = done.output.video_url as string;
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer()).equals(SIM_VIDEO_BYTES)).toBe(true);
    expect(SIM_VIDEO_BYTES.subarray(4, 8).toString('latin1')).toBe('ftyp');
    // A real H.264 video, not just a container header: a video track with an AVC decoder configuration and samples.
    const text = SIM_VIDEO_BYTES.toString('latin1');
    for (const box of ['moov', 'trak', 'avc1', 'avcC', 'stsz', 'mdat']) expect(text, box).toContain(box);
    const part = await fetch(url, { headers: { range: 'bytes=0-15' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 0-15/${SIM_VIDEO_BYTES.length}`);
    expect((await part.arrayBuffer()).byteLength).toBe(16);
    const bad = await fetch(url, { headers: { range: `bytes=${SIM_VIDEO_BYTES.length + 5}-` } });
    expect(bad.status).toBe(416);
    const expired = url.replace(/Expires=\d+/, `Expires=${Math.floor(Date.now() / 1000) - 1}`);
    const e = await fetch(expired);
    expect(e.status).toBe(403);
    expect(await e.text()).toContain('Request has expired');
  });
});
