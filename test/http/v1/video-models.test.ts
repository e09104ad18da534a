// Video model discovery: GET /v1/videos/models and a video model's `video` block in GET /v1/models/{id} show where
// each model is served, its durations, resolutions, modes and fields (the catalogue's data, the same the request rules
// check) and its per-second prices for the token's price group.
import { describe, expect, it } from 'vitest';
import { ADMIN_KEY, useHarness } from '../../support/harness.ts';
import { vidxHarness } from '../../support/vidx.ts';

const t = useHarness(vidxHarness());

interface VideoModel {
  id: string;
  video: {
    endpoints: Array<{ path: string; durations: number[]; resolutions: string[]; modes: string[]; fields: string[] }>;
    price: { per_second: Record<string, number>; sound_per_second?: number; price_group: string | null };
  };
}

async function videoModels(token: string): Promise<VideoModel[]> {
  const r = await t.h.fetch('/v1/videos/models', { token });
  expect(r.status).toBe(200);
  return ((await r.json()) as { data: VideoModel[] }).data;
}

/** A token of an account in a price group of multiplier `m`. */
async function groupToken(group: string, m: number): Promise<string> {
  const admin = (path: string, method: string, json: unknown) => t.h.fetch(path, { method, token: ADMIN_KEY, json });
  expect((await admin(`/admin/price-groups/${group}`, 'PUT', { multiplier: m })).status).toBe(201);
  const a = (await (await admin('/admin/accounts', 'POST', { name: group, price_group: group })).json()) as {
    id: string;
  };
  const tok = await admin('/admin/tokens', 'POST', { name: group, account_id: a.id });
  return ((await tok.json()) as { token: string }).token;
}

describe('video model discovery', () => {
  it('lists the video models with their endpoints, durations, fields and list prices', async () => {
    const models = await videoModels(t.token);
    const ids = models.map((m) => m.id);
    expect(ids).toContain('hhx-1.1-t2v');
    expect(ids).not.toContain('qwx3.7-plus');
    const v26 = models.find((m) => m.id === 'vidx-v2-6')!;
    expect(v26.video.endpoints).toEqual([
      {
        path: '/vidx/v1/videos/text2video',
        durations: [5, 10],
        resolutions: [],
        modes: ['std', 'pro'],
        fields: ['model_name', 'prompt', 'duration', 'mode', 'negative_prompt', 'sound', 'camera_control'],
      },
    ]);
    expect(v26.video.price).toMatchObject({
      per_second: { std: 250_000, pro: 500_000 },
      sound_per_second: 125_000,
      price_group: null,
    });
    const hhx = models.find((m) => m.id === 'hhx-1.1-t2v')!;
    expect(hhx.video.endpoints[0]).toMatchObject({ path: '/v1/videos', resolutions: ['720p', '1080p'] });
    expect(hhx.video.endpoints[0]!.durations).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
    expect(hhx.video.price.per_second).toEqual({ '720p': 900_000, '1080p': 1_600_000 });
  });

  it('GET /v1/models/{id} carries the same block for a video model, none for another', async () => {
    const one = await t.h.fetch('/v1/models/vidx-v3-omni', { token: t.token });
    const body = (await one.json()) as VideoModel;
    const listed = (await videoModels(t.token)).find((m) => m.id === 'vidx-v3-omni')!;
    expect(body.video).toEqual(listed.video);
    expect(body.video.endpoints[0]).toMatchObject({ path: '/vidx/v1/videos/omni-video', modes: ['std', 'pro'] });
    const text = (await (await t.h.fetch('/v1/models/qwx3.7-plus', { token: t.token })).json()) as object;
    expect(text).not.toHaveProperty('video');
  });

  it("prices are the token's price group's", async () => {
    const token = await groupToken('double', 2);
    const v26 = (await videoModels(token)).find((m) => m.id === 'vidx-v2-6')!;
    expect(v26.video.price).toMatchObject({
      per_second: { std: 500_000, pro: 1_000_000 },
      sound_per_second: 250_000,
      price_group: 'double',
    });
  });
});
