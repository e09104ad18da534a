// GET /v1/videos: the caller's own videos only, newest first, cursor paging, strict query parameters.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { openaiClient } from '../../support/sdk.ts';
import { FAST_TASK_ENV } from '../../support/videos.ts';
import type { BErr } from '../../support/error-shapes.ts';
import { DASHSCOPE_VIDEO_TASK_KIND } from '../../../src/adapters/dashscope/video-driver.ts';

const t = useHarness({ env: FAST_TASK_ENV });

type VideoList = {
  object: string;
  data: Array<{ id: string }>;
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
};

describe('GET /v1/videos', () => {
  it('pages through the caller’s own videos with limit and after, and never shows another token’s', async () => {
    const a = await t.h.token({ name: 'list-a' });
    const b = await t.h.token({ name: 'list-b' });
    const mine: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await t.h.fetch('/v1/videos', {
        method: 'POST',
        token: a.secret,
        json: { model: 'wnx2.7-t2v', prompt: `clip ${i}`, seconds: 2 },
      });
      expect(r.status).toBe(200);
      mine.push(((await r.json()) as { id: string }).id);
      await new Promise((res) => setTimeout(res, 5)); // distinct creation times
    }
    const theirs = (await (
      await t.h.fetch('/v1/videos', {
        method: 'POST',
        token: b.secret,
        json: { model: 'wnx2.7-t2v', prompt: 'other', seconds: 2 },
      })
    ).json()) as { id: string };

    const client = openaiClient(t.h, a.secret);
    const first = (await (await t.h.fetch('/v1/videos?limit=2', { token: a.secret })).json()) as VideoList;
    expect(first.object).toBe('list');
    expect(first.data.map((v) => v.id)).toEqual([mine[2], mine[1]]);
    expect(first.has_more).toBe(true);
    const second = (await (
      await t.h.fetch(`/v1/videos?limit=2&after=${first.last_id}`, { token: a.secret })
    ).json()) as VideoList;
    expect(second.data.map((v) => v.id)).toEqual([mine[0]]);
    expect(second.has_more).toBe(false);
    // The official SDK's auto-paginating list sees exactly the three, never the other token's.
    const all: string[] = [];
    for await (const v of client.videos.list({ limit: 1 })) all.push(v.id);
    expect(all).toEqual([mine[2], mine[1], mine[0]]);
    expect(all).not.toContain(theirs.id);
  });

  it('pages through videos created in the same millisecond: each once, newest first then by id', async () => {
    const a = await t.h.token({ name: 'list-same-ms' });
    const repo = t.h.gw.deps.tasks.repo;
    const at = Date.now() - 1000;
    const ids = ['video_samems_a', 'video_samems_b', 'video_samems_c', 'video_samems_d'];
    for (const id of ids) {
      await repo.insert(
        {
          id,
          family: 'v1',
          kind: DASHSCOPE_VIDEO_TASK_KIND,
          tokenId: a.id,
          model: 'wnx2.7-t2v',
          billingModel: 'wnx2.7-t2v',
          upstreamModel: 'wnx2.7-t2v',
          request: { prompt: id, seconds: 2 },
          requestId: `req_${id}`,
          tier: null,
          channelId: 'ch_none',
          estimate: { kind: 'video', outputSeconds: 2 },
          externalTaskId: null,
          callbackUrl: null,
          sessionId: null,
          nextPollAt: at + 3_600_000,
          leaseOwner: 'test',
          leaseUntil: at,
        },
        at,
      );
      expect(await repo.transition(id, 'submitting', { state: 'queued', leaseOwner: null, leaseUntil: null })).toBe(
        true,
      );
    }
    const seen: string[] = [];
    let after = '';
    for (let i = 0; i < 10; i++) {
      const page = (await (await t.h.fetch(`/v1/videos?limit=1${after}`, { token: a.secret })).json()) as VideoList;
      seen.push(...page.data.map((v) => v.id));
      if (!page.has_more) break;
      after = `&after=${page.last_id}`;
    }
    expect(seen).toEqual([...ids].reverse());
  });

  it('refuses bad paging parameters with 400 invalid_parameter (another token’s id as a cursor too)', async () => {
    const a = await t.h.token({ name: 'list-bad' });
    const other = await t.h.token({ name: 'list-other' });
    const foreign = (await (
      await t.h.fetch('/v1/videos', {
        method: 'POST',
        token: other.secret,
        json: { model: 'wnx2.7-t2v', prompt: 'x', seconds: 2 },
      })
    ).json()) as { id: string };
    for (const qs of [
      'limit=0',
      'limit=101',
      'limit=abc',
      'limit=-1',
      'after=video_nope',
      `after=${foreign.id}`,
      'order=up',
      'order=asc&order=desc',
      'sort=asc',
    ]) {
      const r = await t.h.fetch(`/v1/videos?${qs}`, { token: a.secret });
      expect(r.status, qs).toBe(400);
      const body = (await r.json()) as BErr;
      expect(body.error.code, qs).toBe('invalid_parameter');
    }
  });
});
