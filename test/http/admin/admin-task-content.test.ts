// GET /admin/tasks/{id}/content: the operator (the console's player) gets any token's finished video, a /v1 video or
// a family A task, streamed through the gateway from its result host — the same bytes its owner downloads.
import { describe, expect, it } from 'vitest';
import { videoContentType } from '../../../src/http/video-content.ts';
import { type BErr, expectB } from '../../support/error-shapes.ts';
import { useHarness } from '../../support/harness.ts';
import { createVideo, waitTerminal } from '../../support/videos.ts';
import { call, vidxHarness, waitStatus, type TaskData } from '../../support/vidx.ts';

const t = useHarness(vidxHarness());

const bytes = async (r: Response) => Buffer.from(await r.arrayBuffer());

describe('GET /admin/tasks/{id}/content', () => {
  it('streams a finished /v1 video: the bytes its owner downloads, as video/mp4, a byte range honoured', async () => {
    const tok = await t.h.token({ name: 'content-v1' });
    const created = await createVideo(t.h, tok.secret, { model: 'hhx-1.1-t2v', prompt: 'a lighthouse', seconds: 3 });
    expect(created.status).toBe(200);
    const id = String(created.json.id);
    expect((await waitTerminal(t.h, tok.secret, id)).status).toBe('completed');
    const own = await t.h.fetch(`/v1/videos/${id}/content`, { token: tok.secret });
    const admin = await t.h.admin(`/admin/tasks/${id}/content`);
    expect(admin.status).toBe(200);
    expect(admin.headers.get('content-type')).toMatch(/^video\/mp4/);
    // Served on the console's origin: never sniffed or run as a page.
    expect(admin.headers.get('x-content-type-options')).toBe('nosniff');
    expect(admin.headers.get('content-security-policy')).toContain('sandbox');
    const body = await bytes(admin);
    expect(body.length).toBeGreaterThan(0);
    expect(body.equals(await bytes(own))).toBe(true);
    const part = await t.h.admin(`/admin/tasks/${id}/content`, { headers: { range: 'bytes=0-9' } });
    expect(part.status).toBe(206);
    expect((await bytes(part)).equals(body.subarray(0, 10))).toBe(true);
  });

  it('streams a finished family A task (its first video)', async () => {
    const tok = await t.h.token({ name: 'content-vidx' });
    const r = await call<TaskData>(t.h, tok.secret, 'POST', '/vidx/v1/videos/text2video', {
      model_name: 'vidx-v1',
      prompt: 'a harbour',
      duration: '5',
    });
    expect(r.body.code).toBe(0);
    const id = r.body.data.task_id;
    await waitStatus(t.h, tok.secret, `/vidx/v1/videos/text2video/${id}`, 'succeed');
    const admin = await t.h.admin(`/admin/tasks/${id}/content`);
    expect(admin.status).toBe(200);
    expect((await bytes(admin)).length).toBeGreaterThan(0);
  });

  it('an unfinished task is not ready, an unknown one 404, and a client token is refused', async () => {
    const tok = await t.h.token({ name: 'content-open' });
    const created = await createVideo(t.h, tok.secret, {
      model: 'hhx-1.1-t2v',
      prompt: 'never ends sim-fault:stay-running',
      seconds: 3,
    });
    expect(created.status).toBe(200);
    const id = String(created.json.id);
    const notReady = await t.h.admin(`/admin/tasks/${id}/content`);
    expect(notReady.status).toBe(409);
    // The operator is pointed at the admin task view, whichever family the task is of.
    expect(((await notReady.json()) as BErr).error).toMatchObject({
      code: 'video_not_ready',
      message: expect.stringContaining(`poll GET /admin/tasks/${id} `),
    });
    await expectB(await t.h.admin('/admin/tasks/task_nope/content'), 404, 'task_not_found');
    const asClient = await t.h.fetch(`/admin/tasks/${id}/content`, { token: tok.secret });
    expect([401, 403]).toContain(asClient.status);
  });
});

describe('videoContentType', () => {
  it("keeps a result host's video or octet-stream type; anything else is sent as video/mp4", () => {
    expect(videoContentType('video/webm')).toBe('video/webm');
    expect(videoContentType('Video/MP4; codecs="avc1"')).toBe('video/mp4; codecs="avc1"');
    expect(videoContentType('application/octet-stream')).toBe('application/octet-stream');
    for (const v of [
      'text/html',
      'text/html; charset=utf-8',
      'image/svg+xml',
      'application/javascript',
      'video/mp4\r\nx: y',
      '',
      undefined,
      ['video/mp4'],
    ])
      expect(videoContentType(v)).toBe('video/mp4');
  });
});
