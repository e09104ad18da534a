// /v1/videos end to end: the official openai SDK, status/result/error shapes, ownership, content proxy,
// metering at terminal success only.
import { beforeAll, describe, expect, it } from 'vitest';
import { RESULT_VIDEO_PREFIX, SIM_VIDEO_BYTES } from '../../../simulator/dashscope/results-video.ts';
import { eventually } from '../../support/wait.ts';
import { useHarness } from '../../support/harness.ts';
import { openaiClient } from '../../support/sdk.ts';
import { holdOfTask, ledgerOfTask, tokenRow } from '../../support/store-rows.ts';
import { createVideo, FAST_TASK_ENV, getVideo, lastSynthesisBody, waitTerminal } from '../../support/videos.ts';
import type { BErr } from '../../support/error-shapes.ts';

const t = useHarness({ env: FAST_TASK_ENV });
let tok: { id: string; secret: string };
beforeAll(async () => {
  tok = await t.h.token({ name: 'videos' });
});

describe('/v1/videos with the official openai SDK', () => {
  it('create → retrieve until completed → downloadContent returns the bytes', async () => {
    const client = openaiClient(t.h, tok.secret);
    const created = await client.videos.create({
      model: 'wnx2.7-t2v',
      prompt: 'a cat runs on the grass',
      seconds: '4',
      size: '1280x720',
    } as never);
    expect(created.id).toMatch(/^video_[0-9a-f]{32}$/);
    expect((created as unknown as { video_id: string }).video_id).toBe(created.id);
    expect(created.object).toBe('video');
    expect(['queued', 'in_progress']).toContain(created.status);
    expect(created.model).toBe('wnx2.7-t2v');
    // Multipart from the SDK: seconds "4" became 4 upstream, size 1280x720 → 720P and ratio 16:9.
    const sent = lastSynthesisBody(t.h);
    expect(sent.model).toBe('wan2.7-t2v');
    expect(sent.parameters).toMatchObject({ duration: 4, resolution: '720P', ratio: '16:9' });

    let v = await client.videos.retrieve(created.id);
    for (let i = 0; i < 200 && v.status !== 'completed' && v.status !== 'failed'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      v = await client.videos.retrieve(created.id);
    }
    expect(v.status).toBe('completed');
    expect(v.progress).toBe(100);
    expect(typeof v.expires_at).toBe('number');
    const res = await client.videos.downloadContent(created.id);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.equals(SIM_VIDEO_BYTES)).toBe(true);
    expect(res.headers.get('content-type')).toBe('video/mp4');
  });
});

describe('video task object and ownership', () => {
  it('another token gets 404 exactly like an unknown id', async () => {
    const c = await createVideo(t.h, tok.secret, { model: 'wnx2.7-t2v', prompt: 'mine', seconds: 2 });
    expect(c.status).toBe(200);
    const other = await t.h.token({ name: 'other' });
    const foreign = await t.h.fetch(`/v1/videos/${c.json.id}`, { token: other.secret });
    const unknown = await t.h.fetch('/v1/videos/video_00000000000000000000000000000000', { token: other.secret });
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    const fb = (await foreign.json()) as BErr;
    const ub = (await unknown.json()) as BErr;
    expect(fb.error.code).toBe(ub.error.code);
    const content = await t.h.fetch(`/v1/videos/${c.json.id}/content`, { token: other.secret });
    expect(content.status).toBe(404);
  });

  it('content before completion → 409 video_not_ready', async () => {
    const c = await createVideo(t.h, tok.secret, {
      model: 'wnx2.7-t2v',
      prompt: 'slow sim-fault:stay-running',
      seconds: 2,
    });
    const r = await t.h.fetch(`/v1/videos/${c.json.id}/content`, { token: tok.secret });
    expect(r.status).toBe(409);
    expect(((await r.json()) as BErr).error.code).toBe('video_not_ready');
  });

  it('Range download → 206 with the requested slice', async () => {
    const c = await createVideo(t.h, tok.secret, { model: 'wnx2.7-t2v', prompt: 'range', seconds: 2 });
    expect((await waitTerminal(t.h, tok.secret, c.json.id as string)).status).toBe('completed');
    const r = await t.h.fetch(`/v1/videos/${c.json.id}/content`, {
      token: tok.secret,
      headers: { range: 'bytes=10-99' },
    });
    expect(r.status).toBe(206);
    expect(r.headers.get('content-range')).toBe(`bytes 10-99/${SIM_VIDEO_BYTES.length}`);
    expect(r.headers.get('content-length')).toBe('90');
    const bytes = Buffer.from(await r.arrayBuffer());
    expect(bytes.equals(SIM_VIDEO_BYTES.subarray(10, 100))).toBe(true);
    // A Range that is not a byte range is ignored (RFC 9110): the whole file, 200.
    for (const range of ['bytes=abc', 'items=0-1', 'bytes=5']) {
      const whole = await t.h.fetch(`/v1/videos/${c.json.id}/content`, { token: tok.secret, headers: { range } });
      expect(whole.status, range).toBe(200);
      expect(Buffer.from(await whole.arrayBuffer()).equals(SIM_VIDEO_BYTES), range).toBe(true);
    }
  });

  it('Range per RFC 9110: the unit in any case; a backwards range and a list of ranges answered whole, never forwarded', async () => {
    const c = await createVideo(t.h, tok.secret, { model: 'wnx2.7-t2v', prompt: 'range rules', seconds: 2 });
    expect((await waitTerminal(t.h, tok.secret, c.json.id as string)).status).toBe('completed');
    const get = (range: string) =>
      t.h.fetch(`/v1/videos/${c.json.id}/content`, { token: tok.secret, headers: { range } });
    const forwarded = () => t.h.sim.requestsTo(RESULT_VIDEO_PREFIX).at(-1)!.headers.range;
    const n = SIM_VIDEO_BYTES.length;
    for (const [range, first, last] of [
      ['Bytes=0-9', 0, 9],
      ['BYTES=10-19', 10, 19],
      ['bytes=-10', n - 10, n - 1],
    ] as const) {
      const r = await get(range);
      expect(r.status, range).toBe(206);
      expect(r.headers.get('content-range'), range).toBe(`bytes ${first}-${last}/${n}`);
      expect(Buffer.from(await r.arrayBuffer()).equals(SIM_VIDEO_BYTES.subarray(first, last + 1)), range).toBe(true);
      expect(forwarded(), range).toMatch(/^bytes=/);
    }
    for (const range of ['bytes=9-0', 'bytes=0-1,5-9', 'bytes=0-1, -5', 'bytes=99999999999999999-']) {
      const r = await get(range);
      expect(r.status, range).toBe(200);
      expect(Buffer.from(await r.arrayBuffer()).equals(SIM_VIDEO_BYTES), range).toBe(true);
      expect(forwarded(), range).toBeUndefined();
    }
    // Well formed but past the end: the result host's 416 reaches the client.
    const past = await get(`bytes=${n + 10}-`);
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${n}`);
  });

  it('failure: sanitised error and upstream_request_id, hold released, nothing charged', async () => {
    const own = await t.h.token({ name: 'failing' });
    const c = await createVideo(t.h, own.secret, {
      model: 'hhx-1.1-t2v',
      prompt: 'boom sim-fault:fail-task',
      seconds: 3,
    });
    expect(c.status).toBe(200);
    expect(Number((await tokenRow(t.h, own.id)).held)).toBe(3 * 1_600_000);
    const v = await waitTerminal(t.h, own.secret, c.json.id as string);
    expect(v.status).toBe('failed');
    // Our code and words; the upstream's own (InternalError.Algo …) are the operators' (admin task view).
    expect(v.error).toEqual({ code: 'upstream_task_failed', message: 'The upstream task failed' });
    const admin = (await (await t.h.admin(`/admin/tasks/${v.id}`)).json()) as { error: { upstream_message?: string } };
    expect(admin.error.upstream_message).toMatch(/^InternalError\.Algo: /);
    expect(v.upstream_request_id).toMatch(/[0-9a-f-]{36}/);
    expect(v.url).toBeUndefined();
    expect(await ledgerOfTask(t.h, v.id)).toHaveLength(0);
    expect((await holdOfTask(t.h, v.id))?.state).toBe('released');
    const after = await tokenRow(t.h, own.id);
    expect(Number(after.spent)).toBe(0);
    expect(Number(after.held)).toBe(0);
  });

  it('an upstream that forgets the task → failed, hold released, a reconciliation log line', async () => {
    const c = await createVideo(t.h, tok.secret, { model: 'wnx2.7-t2v', prompt: 'gone sim-fault:vanish', seconds: 2 });
    const v = await waitTerminal(t.h, tok.secret, c.json.id as string);
    expect(v.status).toBe('failed');
    expect(v.error?.code).toBe('task_unknown');
    expect((await holdOfTask(t.h, v.id))?.state).toBe('released');
    expect(await ledgerOfTask(t.h, v.id)).toHaveLength(0);
    // Written by the poller (on its thread: the line reaches the gateway's log a moment later).
    expect(await eventually(() => t.h.logs.some((l) => l.includes(v.id) && l.includes('reconcile')))).toBe(true);
  });

  it("lists the token's own videos, newest first", async () => {
    const mine = await t.h.token({ name: 'lister' });
    const a = await createVideo(t.h, mine.secret, { model: 'wnx2.7-t2v', prompt: 'one', seconds: 2 });
    const b = await createVideo(t.h, mine.secret, { model: 'wnx2.7-t2v', prompt: 'two', seconds: 2 });
    const r = await t.h.fetch('/v1/videos', { token: mine.secret });
    const body = (await r.json()) as { data: Array<{ id: string }> };
    expect(body.data.map((d) => d.id)).toEqual([b.json.id, a.json.id]);
  });
});

describe('metering at terminal success', () => {
  // A second gateway whose simulator signs result URLs that expire at once.
  const short = useHarness({ env: FAST_TASK_ENV, sim: { resultTtlMs: 1 } });

  it('hhx-1.1 without resolution defaults to 1080p and is billed at the 1080p tier', async () => {
    const c = await createVideo(t.h, tok.secret, { model: 'hhx-1.1-t2v', prompt: 'a horse', seconds: 4 });
    expect(c.status).toBe(200);
    expect(lastSynthesisBody(t.h).parameters.resolution).toBe('1080P');
    // A hold, not a charge, at creation: 4 s × 1.6 units.
    expect(await ledgerOfTask(t.h, c.json.id as string)).toHaveLength(0);
    expect(Number((await holdOfTask(t.h, c.json.id as string))?.amount)).toBe(4 * 1_600_000);
    const v = await waitTerminal(t.h, tok.secret, c.json.id as string);
    expect(v.status).toBe('completed');
    const rows = await ledgerOfTask(t.h, v.id);
    expect(rows).toHaveLength(1);
    expect(Number(rows[0]!.amount)).toBe(4 * 1_600_000);
    expect(JSON.parse(rows[0]!.quantities).tier).toBe('1080p');
    expect((await holdOfTask(t.h, v.id))?.state).toBe('settled');
  });

  it('success is charged exactly once while many concurrent GETs and the poller race', async () => {
    const own = await t.h.token({ name: 'racer' });
    const c = await createVideo(t.h, own.secret, {
      model: 'wnx2.7-t2v',
      prompt: 'race',
      seconds: 2,
      resolution: '1080p',
    });
    const id = c.json.id as string;
    let done = false;
    const poller = async () => {
      while (!done) {
        const r = await getVideo(t.h, own.secret, id);
        if (r.json.status === 'completed') done = true;
      }
    };
    await Promise.all(Array.from({ length: 12 }, poller));
    await Promise.all(Array.from({ length: 12 }, () => getVideo(t.h, own.secret, id)));
    const rows = await ledgerOfTask(t.h, id);
    expect(rows).toHaveLength(1);
    expect(Number(rows[0]!.amount)).toBe(2 * 1_000_000);
    expect(await tokenRow(t.h, own.id)).toMatchObject({ spent: 2 * 1_000_000, held: 0 });
  });

  it('a dated snapshot is forwarded pinned and billed as its base model', async () => {
    const c = await createVideo(t.h, tok.secret, {
      model: 'wnx2.7-t2v-2026-01-15',
      prompt: 'pinned',
      seconds: 3,
      resolution: '720p',
    });
    expect(c.status).toBe(200);
    expect(c.json.model).toBe('wnx2.7-t2v-2026-01-15');
    expect(lastSynthesisBody(t.h).model).toBe('wan2.7-t2v-2026-01-15');
    const v = await waitTerminal(t.h, tok.secret, c.json.id as string);
    expect(v.status).toBe('completed');
    const rows = await ledgerOfTask(t.h, v.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.model).toBe('wnx2.7-t2v-2026-01-15');
    expect(Number(rows[0]!.amount)).toBe(3 * 600_000); // wnx2.7-t2v 720p price
  });

  it('edit models are billed by input + output duration', async () => {
    const c = await createVideo(t.h, tok.secret, {
      model: 'hhx-1.0-video-edit',
      prompt: 'make it snow',
      references: { video: ['https://cdn.example.com/src.mp4'] },
      resolution: '720p',
    });
    expect(c.status).toBe(200);
    const v = await waitTerminal(t.h, tok.secret, c.json.id as string);
    expect(v.status).toBe('completed');
    const rows = await ledgerOfTask(t.h, v.id);
    expect(rows).toHaveLength(1);
    // simulator: 6.62 s in + 6.62 s out at 0.9 units/s (720p)
    expect(Number(rows[0]!.amount)).toBe(Math.ceil((13_240 * 900_000) / 1000));
  });

  it('an expired result URL → result_expired, not a proxy error', async () => {
    const c = await createVideo(short.h, short.token, { model: 'wnx2.7-t2v', prompt: 'short-lived', seconds: 2 });
    const v = await waitTerminal(short.h, short.token, c.json.id as string);
    expect(v.status).toBe('completed');
    await new Promise((r) => setTimeout(r, 1100)); // the signed URL carries whole seconds
    const r = await short.h.fetch(`/v1/videos/${v.id}/content`, { token: short.token });
    expect(r.status).toBe(410);
    expect(((await r.json()) as BErr).error.code).toBe('result_expired');
  });
});

describe('status fields', () => {
  it('the completed object carries the result url and expires_at; ids are ours', async () => {
    const c = await createVideo(t.h, tok.secret, { model: 'wnx2.7-t2v', prompt: 'fields', seconds: 5 });
    const v = await waitTerminal(t.h, tok.secret, c.json.id as string);
    expect(v.url).toMatch(/\/dashscope-result\/video\/.+\.mp4\?Expires=/);
    expect(v.expires_at).toBeGreaterThan(Math.floor(Date.now() / 1000));
    expect(v.seconds).toBe('5');
    const upstreamId = (t.h.sim.requestsTo('/api/v1/tasks/').at(-1)?.path ?? '').split('/').pop();
    expect(v.id).not.toBe(upstreamId);
    const again = await getVideo(t.h, tok.secret, v.id);
    expect(again.json.status).toBe('completed');
  });
});
