// DELETE /v1/videos/{id} and the content variants: a video not yet made is cancelled upstream and its hold released
// (never charged); one being made is refused; a finished one is hidden (not listed, not read, its content not served)
// while its charge stands; deleting again is 404, as is another token's video. A thumbnail or sprite sheet request is
// 404 (the upstream makes neither) and never gets the MP4; an unknown variant is 400.
import { describe, expect, it } from 'vitest';
import { RESULT_VIDEO_PREFIX } from '../../../simulator/dashscope/results-video.ts';
import type { BErr } from '../../support/error-shapes.ts';
import { useHarness } from '../../support/harness.ts';
import { holdOfTask, ledgerOfTask, tokenRow } from '../../support/store-rows.ts';
import { createVideo, FAST_TASK_ENV, getVideo, waitTerminal } from '../../support/videos.ts';
import { eventually } from '../../support/wait.ts';

type List = { data: Array<{ id: string }> };
const listIds = async (h: ReturnType<typeof useHarness>['h'], token: string) =>
  ((await (await h.fetch('/v1/videos?limit=100', { token })).json()) as List).data.map((v) => v.id);

describe('DELETE /v1/videos/{id} of a video not yet made', () => {
  // The upstream keeps a task PENDING for a fifth of its run: long enough to delete it while it is queued.
  const t = useHarness({ env: FAST_TASK_ENV, sim: { taskDurationMs: 120_000 } });

  it('cancels it upstream, releases its hold, charges nothing, and hides it; a second delete is 404', async () => {
    const tok = await t.h.token({ name: 'delete-queued', quota: 100_000_000 });
    const c = await createVideo(t.h, tok.secret, { model: 'wnx2.7-t2v', prompt: 'delete me queued', seconds: 2 });
    expect(c.status).toBe(200);
    const id = c.json.id as string;
    expect((await holdOfTask(t.h, id))?.state).toBe('held');
    expect(Number((await tokenRow(t.h, tok.id)).held)).toBeGreaterThan(0);
    const other = await t.h.token({ name: 'not-the-owner' });
    const foreign = await t.h.fetch(`/v1/videos/${id}`, { method: 'DELETE', token: other.secret });
    expect(foreign.status).toBe(404);
    expect((await holdOfTask(t.h, id))?.state).toBe('held');

    const d = await t.h.fetch(`/v1/videos/${id}`, { method: 'DELETE', token: tok.secret });
    expect(d.status).toBe(200);
    expect(await d.json()).toEqual({ id, object: 'video.deleted', deleted: true });
    expect((await holdOfTask(t.h, id))?.state).toBe('released');
    expect(Number((await tokenRow(t.h, tok.id)).held)).toBe(0);
    const row = await t.h.gw.deps.tasks.repo.get(id);
    expect(row?.state).toBe('cancelled');
    expect(row?.error?.message).toContain('by its owner');
    expect(row?.deletedAt).toEqual(expect.any(Number));
    // The upstream was asked to stop it (DashScope cancels a PENDING task).
    const upstreamId = row!.upstreamTaskId!;
    expect(
      await eventually(() =>
        t.h.sim.recorded.some((r) => r.method === 'POST' && r.path === `/api/v1/tasks/${upstreamId}/cancel`),
      ),
    ).toBe(true);

    expect((await getVideo(t.h, tok.secret, id)).status).toBe(404);
    expect((await t.h.fetch(`/v1/videos/${id}/content`, { token: tok.secret })).status).toBe(404);
    expect(await listIds(t.h, tok.secret)).not.toContain(id);
    const again = await t.h.fetch(`/v1/videos/${id}`, { method: 'DELETE', token: tok.secret });
    expect(again.status).toBe(404);
    expect(((await again.json()) as BErr).error.code).toBe('not_found');
    // The poller's later rounds never charge it.
    await t.h.gw.deps.tasks.tick();
    expect(await ledgerOfTask(t.h, id)).toHaveLength(0);
    expect(Number((await tokenRow(t.h, tok.id)).spent)).toBe(0);
  });
});

describe('DELETE /v1/videos/{id} of a video being made or made', () => {
  const t = useHarness({ env: FAST_TASK_ENV });

  it('a video being generated is refused (409) and keeps its hold', async () => {
    const tok = await t.h.token({ name: 'delete-running' });
    const c = await createVideo(t.h, tok.secret, {
      model: 'wnx2.7-t2v',
      prompt: 'long sim-fault:stay-running',
      seconds: 2,
    });
    const id = c.json.id as string;
    expect(await eventually(async () => (await getVideo(t.h, tok.secret, id)).json.status === 'in_progress')).toBe(
      true,
    );
    const d = await t.h.fetch(`/v1/videos/${id}`, { method: 'DELETE', token: tok.secret });
    expect(d.status).toBe(409);
    const body = (await d.json()) as BErr;
    expect(body.error.code).toBe('conflict');
    expect(body.error.message).toContain('in_progress');
    expect((await holdOfTask(t.h, id))?.state).toBe('held');
    expect((await getVideo(t.h, tok.secret, id)).status).toBe(200);
  });

  it('a finished video is hidden and its content no longer served; its charge stands', async () => {
    const tok = await t.h.token({ name: 'delete-finished' });
    const c = await createVideo(t.h, tok.secret, { model: 'wnx2.7-t2v', prompt: 'delete me done', seconds: 2 });
    const id = c.json.id as string;
    expect((await waitTerminal(t.h, tok.secret, id)).status).toBe('completed');
    expect((await t.h.fetch(`/v1/videos/${id}/content`, { token: tok.secret })).status).toBe(200);
    const charged = await ledgerOfTask(t.h, id);
    expect(charged).toHaveLength(1);

    const d = await t.h.fetch(`/v1/videos/${id}`, { method: 'DELETE', token: tok.secret });
    expect(d.status).toBe(200);
    expect(await d.json()).toEqual({ id, object: 'video.deleted', deleted: true });
    const fetched = t.h.sim.requestsTo(RESULT_VIDEO_PREFIX).length;
    const content = await t.h.fetch(`/v1/videos/${id}/content`, { token: tok.secret });
    expect(content.status).toBe(404);
    expect(content.headers.get('content-type')).toContain('application/json');
    expect(t.h.sim.requestsTo(RESULT_VIDEO_PREFIX)).toHaveLength(fetched);
    expect((await getVideo(t.h, tok.secret, id)).status).toBe(404);
    expect(await listIds(t.h, tok.secret)).not.toContain(id);
    expect((await t.h.fetch(`/v1/videos/${id}`, { method: 'DELETE', token: tok.secret })).status).toBe(404);
    expect((await ledgerOfTask(t.h, id)).map((l) => Number(l.amount))).toEqual(charged.map((l) => Number(l.amount)));
    // The operator still sees the task.
    expect((await t.h.gw.deps.tasks.repo.get(id))?.state).toBe('succeeded');
  });
});

describe('GET /v1/videos/{id}/content?variant=', () => {
  const t = useHarness({ env: FAST_TASK_ENV });

  it('thumbnail and spritesheet are 404 and never the MP4; an unknown variant is 400; video is the default', async () => {
    const c = await createVideo(t.h, t.token, { model: 'wnx2.7-t2v', prompt: 'variants', seconds: 2 });
    const id = c.json.id as string;
    expect((await waitTerminal(t.h, t.token, id)).status).toBe('completed');
    const fetched = t.h.sim.requestsTo(RESULT_VIDEO_PREFIX).length;
    for (const variant of ['thumbnail', 'spritesheet']) {
      const r = await t.h.fetch(`/v1/videos/${id}/content?variant=${variant}`, { token: t.token });
      expect(r.status, variant).toBe(404);
      expect(r.headers.get('content-type'), variant).toContain('application/json');
      const body = (await r.json()) as BErr;
      expect(body.error.code).toBe('not_found');
      expect(body.error.param).toBe('variant');
      expect(body.error.message).toContain(`no ${variant}`);
    }
    // The result host was never asked: no MP4 byte can have gone out for those.
    expect(t.h.sim.requestsTo(RESULT_VIDEO_PREFIX)).toHaveLength(fetched);
    for (const q of ['variant=gif', 'variant=thumbnail&variant=video', 'variants=video']) {
      const r = await t.h.fetch(`/v1/videos/${id}/content?${q}`, { token: t.token });
      expect(r.status, q).toBe(400);
      expect(((await r.json()) as BErr).error.code, q).toBe('invalid_parameter');
    }
    const v = await t.h.fetch(`/v1/videos/${id}/content?variant=video`, { token: t.token });
    expect(v.status).toBe(200);
    expect(v.headers.get('content-type')).toBe('video/mp4');
  });
});

describe('the served OpenAPI document', () => {
  const t = useHarness({ env: FAST_TASK_ENV });

  it('describes DELETE, the content variants, the list order and callback_url', async () => {
    type Doc = {
      paths: Record<string, Record<string, { parameters?: Array<{ name: string }>; requestBody?: unknown }>>;
    };
    const doc = (await (await t.h.fetch('/openapi.json')).json()) as Doc;
    expect(doc.paths['/v1/videos/{video_id}']?.delete).toBeDefined();
    const names = (p: string, m: string) => (doc.paths[p]?.[m]?.parameters ?? []).map((x) => x.name);
    expect(names('/v1/videos/{video_id}/content', 'get')).toContain('variant');
    expect(names('/v1/videos', 'get')).toEqual(expect.arrayContaining(['limit', 'after', 'order']));
    expect(JSON.stringify(doc.paths['/v1/videos']?.post?.requestBody)).toContain('callback_url');
  });
});
