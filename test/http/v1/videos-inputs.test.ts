// input_reference given inline on POST /v1/videos: a file part (the openai SDK's Uploadable) or a data: URL. Each is
// stored and reaches the upstream as a signed gateway address that serves exactly its bytes; a bad one (type, size,
// bytes not of their type, malformed base64, another file field, no public address) is refused before any hold.
import { toFile } from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { solidPng } from '../../../simulator/dashscope/images-png.ts';
import { SIM_VIDEO_BYTES } from '../../../simulator/dashscope/results-video.ts';
import { type BErr, RID } from '../../support/error-shapes.ts';
import { useHarness } from '../../support/harness.ts';
import { openaiClient } from '../../support/sdk.ts';
import { tokenRow } from '../../support/store-rows.ts';
import { createVideo, FAST_TASK_ENV, lastSynthesisBody, waitTerminal } from '../../support/videos.ts';

const t = useHarness({ env: FAST_TASK_ENV });
beforeAll(() => {
  // The address the upstream fetches stored media from.
  t.h.config.publicUrl = t.h.url;
});

const dataUrl = (type: string, b: Buffer) => `data:${type};base64,${b.toString('base64')}`;

/** The medium the upstream was handed: a signed gateway address serving exactly `bytes`, and only when signed. */
async function expectServed(url: string, bytes: Buffer, type: string): Promise<void> {
  expect(url.startsWith(`${t.h.url}/v1/videos/inputs/vin_`)).toBe(true);
  const r = await fetch(url);
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toBe(type);
  expect(Buffer.from(await r.arrayBuffer()).equals(bytes)).toBe(true);
  const u = new URL(url);
  u.searchParams.set('sig', '0'.repeat(64));
  expect((await fetch(u)).status).toBe(404);
  u.searchParams.delete('sig');
  expect((await fetch(u)).status).toBe(404);
}

describe('input_reference uploads reach the upstream', () => {
  it('a multipart file part from the openai SDK becomes the first frame', async () => {
    const png = solidPng('upload');
    const client = openaiClient(t.h, t.token);
    const v = await client.videos.create({
      model: 'hhx-1.1-i2v',
      prompt: 'the frame comes alive',
      seconds: '4',
      input_reference: await toFile(png, 'frame.png', { type: 'image/png' }),
    } as never);
    const sent = lastSynthesisBody(t.h);
    expect(sent.input.media).toHaveLength(1);
    expect(sent.input.media![0]!.type).toBe('first_frame');
    await expectServed(sent.input.media![0]!.url, png, 'image/png');
    expect((await waitTerminal(t.h, t.token, v.id)).status).toBe('completed');
  });

  it('a data: URL video becomes the first clip; a data: URL image in {image_url} the last frame', async () => {
    const png = solidPng('last');
    const c = await createVideo(t.h, t.token, {
      model: 'wnx2.7-i2v',
      prompt: 'go on from the clip',
      seconds: 2,
      input_reference: [dataUrl('video/mp4', SIM_VIDEO_BYTES), { image_url: dataUrl('image/png', png) }],
    });
    expect(c.status, JSON.stringify(c.json)).toBe(200);
    const media = lastSynthesisBody(t.h).input.media!;
    expect(media.map((m) => m.type)).toEqual(['first_clip', 'last_frame']);
    expect(media[0]!.url).toMatch(/\.mp4\?sig=/);
    await expectServed(media[0]!.url, SIM_VIDEO_BYTES, 'video/mp4');
    await expectServed(media[1]!.url, png, 'image/png');
  });
});

describe('bad inline media are refused before any hold', () => {
  const png = solidPng('bad');
  const post = async (token: string, form: FormData) => {
    const r = await t.h.fetch('/v1/videos', { method: 'POST', token, body: form });
    return { status: r.status, body: (await r.json()) as BErr };
  };
  const form = (file: Blob, field = 'input_reference', name = 'f.png') => {
    const f = new FormData();
    f.set('model', 'hhx-1.1-i2v');
    f.set('prompt', 'x');
    f.set(field, file, name);
    return f;
  };

  it.each([
    ['a type not taken', dataUrl('image/gif', Buffer.from('GIF89a')), 'type image/gif is not accepted'],
    ['bytes not of their type', dataUrl('image/png', Buffer.from('not a png at all')), 'does not hold image/png'],
    ['malformed base64', 'data:image/png;base64,@@@@', 'base64 is malformed'],
    ['no base64', 'data:image/png,rawtext', 'must be data:<type>;base64'],
    ['an empty medium', 'data:image/png;base64,', 'is empty'],
    [
      'an image over 10 MB',
      dataUrl('image/png', Buffer.concat([png, Buffer.alloc(10 * 1024 * 1024)])),
      'at most 10 MB',
    ],
  ])('JSON data: URL: %s', async (_what, url, message) => {
    const tok = await t.h.token({ name: 'bad-data-url' });
    const before = t.h.sim.requestsTo('video-synthesis').length;
    const c = await createVideo(t.h, tok.secret, { model: 'hhx-1.1-i2v', prompt: 'x', input_reference: url });
    expect(c.status).toBe(400);
    const err = (c.json as unknown as BErr).error;
    expect(err.code).toBe('invalid_reference');
    expect(err.param).toBe('input_reference');
    expect(err.message).toContain(message);
    expect(err.request_id).toMatch(RID);
    expect(t.h.sim.requestsTo('video-synthesis')).toHaveLength(before);
    expect(Number((await tokenRow(t.h, tok.id)).held)).toBe(0);
    expect(await t.h.store.db.selectFrom('video_inputs').selectAll().where('token_id', '=', tok.id).execute()).toEqual(
      [],
    );
  });

  it('multipart: a wrong type, mismatched bytes, another file field; and no public address', async () => {
    const tok = await t.h.token({ name: 'bad-upload' });
    const before = t.h.sim.requestsTo('video-synthesis').length;
    const cases: Array<[FormData, string, string]> = [
      [form(new Blob([Buffer.from('hello')], { type: 'text/plain' })), 'input_reference', 'type text/plain'],
      [form(new Blob([Buffer.from('hello')], { type: 'image/png' })), 'input_reference', 'does not hold image/png'],
      [form(new Blob([png], { type: 'image/png' }), 'video'), 'video', 'files are taken only as input_reference'],
    ];
    for (const [f, param, message] of cases) {
      const r = await post(tok.secret, f);
      expect([r.status, r.body.error.code, r.body.error.param], message).toEqual([400, 'invalid_reference', param]);
      expect(r.body.error.message).toContain(message);
    }
    const saved = t.h.config.publicUrl;
    t.h.config.publicUrl = undefined;
    try {
      const r = await post(tok.secret, form(new Blob([png], { type: 'image/png' })));
      expect([r.status, r.body.error.code]).toEqual([400, 'invalid_reference']);
      expect(r.body.error.message).toContain('TOLLWAY_PUBLIC_URL');
    } finally {
      t.h.config.publicUrl = saved;
    }
    expect(t.h.sim.requestsTo('video-synthesis')).toHaveLength(before);
    expect(Number((await tokenRow(t.h, tok.id)).held)).toBe(0);
    expect(await t.h.store.db.selectFrom('tasks').selectAll().where('token_id', '=', tok.id).execute()).toEqual([]);
  });
});
