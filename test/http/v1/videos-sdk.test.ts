// The official openai SDK's whole videos surface against the gateway: create, retrieve, list (paged by after and
// limit, in both orders), downloadContent (the video; a thumbnail is a 404, never the MP4) and delete.
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { SIM_VIDEO_BYTES } from '../../../simulator/dashscope/results-video.ts';
import { useHarness } from '../../support/harness.ts';
import { openaiClient } from '../../support/sdk.ts';
import { FAST_TASK_ENV } from '../../support/videos.ts';

const t = useHarness({ env: FAST_TASK_ENV });

async function completed(client: OpenAI, id: string): Promise<OpenAI.Videos.Video> {
  let v = await client.videos.retrieve(id);
  for (let i = 0; i < 200 && v.status !== 'completed' && v.status !== 'failed'; i++) {
    await new Promise((r) => setTimeout(r, 50));
    v = await client.videos.retrieve(id);
  }
  return v;
}

describe('/v1/videos with the official openai SDK', () => {
  it('create, retrieve, list, downloadContent and delete', async () => {
    const tok = await t.h.token({ name: 'sdk-videos' });
    const client = openaiClient(t.h, tok.secret);
    const ids: string[] = [];
    for (const prompt of ['first', 'second', 'third']) {
      const v = await client.videos.create({ model: 'wnx2.7-t2v', prompt, seconds: '4', size: '1280x720' } as never);
      expect(v.object).toBe('video');
      ids.push(v.id);
      await new Promise((r) => setTimeout(r, 5)); // distinct creation times
    }
    const v = await completed(client, ids[0]!);
    expect(v.status).toBe('completed');

    // Newest first by default, oldest first with order=asc; the SDK pages with after=last_id.
    const desc: string[] = [];
    for await (const x of client.videos.list({ limit: 1 })) desc.push(x.id);
    expect(desc).toEqual([...ids].reverse());
    const asc: string[] = [];
    for await (const x of client.videos.list({ limit: 2, order: 'asc' })) asc.push(x.id);
    expect(asc).toEqual(ids);
    const page = await client.videos.list({ limit: 2 });
    expect(page.data.map((x) => x.id)).toEqual([ids[2], ids[1]]);
    expect(page.has_more).toBe(true);

    const res = await client.videos.downloadContent(ids[0]!);
    expect(Buffer.from(await res.arrayBuffer()).equals(SIM_VIDEO_BYTES)).toBe(true);
    const thumb = await client.videos.downloadContent(ids[0]!, { variant: 'thumbnail' }).catch((e: unknown) => e);
    expect(thumb).toBeInstanceOf(OpenAI.NotFoundError);

    const d = await client.videos.delete(ids[0]!);
    expect(d).toEqual({ id: ids[0], object: 'video.deleted', deleted: true });
    await expect(client.videos.retrieve(ids[0]!)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(client.videos.downloadContent(ids[0]!)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(client.videos.delete(ids[0]!)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const left: string[] = [];
    for await (const x of client.videos.list()) left.push(x.id);
    expect(left).toEqual([ids[2], ids[1]]);
  });
});
