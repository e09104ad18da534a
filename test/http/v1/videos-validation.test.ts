// POST /v1/videos validation rows (each with its own code) and the contract's reference mapping,
// observed at the simulator for every model.
import { describe, expect, it } from 'vitest';
import { applyOverrides, Catalogue } from '../../../src/catalogue/catalogue.ts';
import { useHarness } from '../../support/harness.ts';
import { createVideo, lastSynthesisBody } from '../../support/videos.ts';
import type { BErr } from '../../support/error-shapes.ts';

// No poller: these tests only look at creation.
const t = useHarness({ env: { TOLLWAY_TASK_POLLER: '0' } });

const IMG = (n: number) => `https://img.example.com/p${n}.png`;
const VID = (n: number) => `https://cdn.example.com/v${n}.mp4`;

async function rejects(body: Record<string, unknown>, code: string, param?: string): Promise<string> {
  const before = t.h.sim.requestsTo('video-synthesis').length;
  const r = await createVideo(t.h, t.token, body);
  const err = (r.json as BErr).error;
  expect(r.status, JSON.stringify(r.json)).toBe(400);
  expect(err.code).toBe(code);
  if (param) expect(err.message + (err.param ?? '')).toContain(param);
  // Nothing reached the upstream and nothing was held.
  expect(t.h.sim.requestsTo('video-synthesis').length).toBe(before);
  return err.message;
}

describe('validation rows', () => {
  it.each([
    [{ model: 'wnx2.7-t2v', prompt: 'x', seconds: 1 }, 'invalid_duration'],
    [{ model: 'wnx2.7-t2v', prompt: 'x', seconds: 16 }, 'invalid_duration'],
    [{ model: 'wnx2.7-t2v', prompt: 'x', seconds: 4.5 }, 'invalid_duration'],
    [{ model: 'hhx-1.1-t2v', prompt: 'x', seconds: 2 }, 'invalid_duration'],
    [{ model: 'wnx2.7-r2v', prompt: 'x', seconds: 12, references: { video: [VID(1)] } }, 'invalid_duration'],
    [{ model: 'wnx2.7-t2v', prompt: 'x', resolution: '480p' }, 'invalid_resolution'],
    [{ model: 'wnx2.7-t2v', prompt: 'x', resolution: 1080 }, 'invalid_resolution'],
    [{ model: 'wnx2.7-t2v', prompt: 'x', seed: '42' }, 'invalid_seed'],
    [{ model: 'wnx2.7-t2v', prompt: 'x', seed: 1.5 }, 'invalid_seed'],
    [{ model: 'wnx2.7-t2v', prompt: 'x', seed: -1 }, 'invalid_seed'],
    [{ model: 'wnx2.7-t2v', prompt: 'x', seed: 2147483648 }, 'invalid_seed'],
    [{ model: 'wnx2.7-t2v', prompt: 'x', seed: true }, 'invalid_seed'],
    [{ model: 'wnx2.7-t2v', prompt: 'x', size: '00x00' }, 'invalid_size'],
    [{ model: 'wnx2.7-t2v', prompt: 'x', size: '99999x99999' }, 'invalid_size'],
    [{ model: 'wnx2.7-t2v', prompt: 'x', size: '1280x64' }, 'invalid_size'],
    [{ model: 'wnx2.7-t2v', prompt: 'x', size: ' 1280x720' }, 'invalid_size'],
    [{ model: 'wnx2.7-t2v', prompt: 'x', size: '1280x720\n' }, 'invalid_size'],
  ])('%j → %s', async (body, code) => {
    await rejects(body, code);
  });

  it('accepts the edges: 2 s for wnx, 3 s for hhx, 15 s, seed 0 and 2147483647', async () => {
    for (const body of [
      { model: 'wnx2.7-t2v', prompt: 'x', seconds: 2, seed: 0 },
      { model: 'hhx-1.1-t2v', prompt: 'x', seconds: 3, seed: 2147483647 },
      { model: 'wnx2.7-t2v', prompt: 'x', seconds: 15 },
    ]) {
      const r = await createVideo(t.h, t.token, body);
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(lastSynthesisBody(t.h).parameters.duration).toBe(body.seconds);
      if ('seed' in body) expect(lastSynthesisBody(t.h).parameters.seed).toBe(body.seed);
    }
  });

  it('a seed for a model without fixed-seed support → seed_not_supported', async () => {
    const saved = t.h.gw.deps.catalogue;
    t.h.gw.deps.catalogue = new Catalogue(
      applyOverrides(saved.entries(), [
        { model: 'wnx2.7-r2v', entry: { video: { ...saved.get('wnx2.7-r2v')!.video!, seed: false } } },
      ]),
    );
    try {
      await rejects(
        { model: 'wnx2.7-r2v', prompt: 'x', seed: 7, references: { video: [VID(1)] } },
        'seed_not_supported',
        'seed',
      );
    } finally {
      t.h.gw.deps.catalogue = saved;
    }
  });

  it.each([
    [{ model: 'wnx2.7-t2v', prompt: 'x', input_reference: IMG(1) }, 'input_reference'],
    [{ model: 'hhx-1.1-i2v', prompt: 'x' }, 'input_reference'],
    [{ model: 'hhx-1.1-i2v', prompt: 'x', input_reference: [IMG(1), IMG(2)] }, 'input_reference'],
    [{ model: 'hhx-1.1-i2v', prompt: 'x', input_reference: VID(1) }, 'input_reference'],
    [{ model: 'hhx-1.1-i2v', prompt: 'x', input_reference: 'ftp://img.example.com/a.png' }, 'input_reference'],
    [
      { model: 'hhx-1.1-i2v', prompt: 'x', input_reference: { image_url: 'data:image/png;base64,AAAA' } },
      'input_reference',
    ],
    [{ model: 'hhx-1.1-i2v', prompt: 'x', input_reference: IMG(1), input_image: IMG(2) }, 'input_image'],
    [{ model: 'hhx-1.1-r2v', prompt: 'x' }, 'input_reference'],
    [
      {
        model: 'hhx-1.1-r2v',
        prompt: 'x',
        input_reference: Array.from({ length: 10 }, (_, i) => ({ image_url: IMG(i) })),
      },
      'input_reference',
    ],
    [{ model: 'wnx2.7-i2v', prompt: 'x' }, 'input_reference'],
    [{ model: 'wnx2.7-i2v', prompt: 'x', input_reference: [VID(1), VID(2)] }, 'input_reference'],
    [{ model: 'wnx2.7-r2v', prompt: 'x' }, 'references.video'],
    [
      { model: 'wnx2.7-r2v', prompt: 'x', references: { video: ['https://cdn.example.com/v.avi'] } },
      'references.video',
    ],
    [{ model: 'wnx2.7-videoedit', prompt: 'x', input_reference: { image_url: IMG(1) } }, 'references.video'],
    [{ model: 'wnx2.7-videoedit', prompt: 'x', references: { video: [VID(1), VID(2)] } }, 'references.video'],
    [{ model: 'hhx-1.0-video-edit', prompt: 'x' }, 'references.video'],
    [{ model: 'wnx2.7-t2v', prompt: 'x', references: { audio: ['https://a.example.com/a.mp3'] } }, 'references.audio'],
  ])('%j → invalid_reference naming %s', async (body, field) => {
    await rejects(body, 'invalid_reference', field);
  });

  it('unknown model → model_not_found; a non-video model → model_not_supported', async () => {
    const r = await createVideo(t.h, t.token, { model: 'wnx9-t2v', prompt: 'x' });
    expect(r.status).toBe(404);
    expect((r.json as BErr).error.code).toBe('model_not_found');
    const c = await createVideo(t.h, t.token, { model: 'qwx3.7-plus', prompt: 'x' });
    expect(c.status).toBe(400);
    expect((c.json as BErr).error.code).toBe('model_not_supported');
  });

  it('multipart: seconds and seed as form strings are numbers; an uploaded file is refused', async () => {
    const form = new FormData();
    form.append('model', 'hhx-1.1-t2v');
    form.append('prompt', 'form');
    form.append('seconds', '8');
    form.append('seed', '42');
    const r = await t.h.fetch('/v1/videos', { method: 'POST', token: t.token, body: form });
    expect(r.status).toBe(200);
    expect(lastSynthesisBody(t.h).parameters).toMatchObject({ duration: 8, seed: 42 });
    const f2 = new FormData();
    f2.append('model', 'hhx-1.1-i2v');
    f2.append('input_reference', new Blob([Buffer.from('png')], { type: 'image/png' }), 'a.png');
    const u = await t.h.fetch('/v1/videos', { method: 'POST', token: t.token, body: f2 });
    expect(u.status).toBe(400);
    expect(((await u.json()) as BErr).error.code).toBe('invalid_reference');
  });

  it('references that are not an object: a readable message (no example URL for the redaction to rewrite)', async () => {
    const message = await rejects(
      { model: 'wnx2.7-r2v', prompt: 'x', references: 'x' },
      'invalid_reference',
      'references',
    );
    expect(message).not.toContain('[redacted');
    expect(message).toContain('"video"');
  });

  it('multipart: a form cut before its closing boundary is refused (400), not created without its last field', async () => {
    const before = t.h.sim.requestsTo('video-synthesis').length;
    const part = (n: string, v: string) => `--zz\r\nContent-Disposition: form-data; name="${n}"\r\n\r\n${v}`;
    const body = `${part('model', 'wnx2.7-t2v')}\r\n${part('prompt', 'x')}\r\n${part('resolution', '720p')}`;
    const r = await t.h.fetch('/v1/videos', {
      method: 'POST',
      token: t.token,
      headers: { 'content-type': 'multipart/form-data; boundary=zz' },
      body,
    });
    expect(r.status).toBe(400);
    const err = ((await r.json()) as BErr).error;
    expect(err.code).toBe('invalid_request');
    expect(r.headers.get('x-gateway-request-id')).toMatch(/^req_/);
    expect(t.h.sim.requestsTo('video-synthesis').length).toBe(before);
    // The same form, closed, is created at the resolution it asked for.
    const ok = await t.h.fetch('/v1/videos', {
      method: 'POST',
      token: t.token,
      headers: { 'content-type': 'multipart/form-data; boundary=zz' },
      body: `${body}\r\n--zz--\r\n`,
    });
    expect(ok.status).toBe(200);
    expect(lastSynthesisBody(t.h).parameters).toMatchObject({ resolution: '720P' });
  });

  it('multipart: nested fields as the SDK encodes them (input_reference[image_url], references[video][])', async () => {
    const form = new FormData();
    form.append('model', 'wnx2.7-r2v');
    form.append('prompt', 'nested');
    form.append('references[video][]', VID(7));
    form.append('input_reference[image_url]', IMG(7));
    const r = await t.h.fetch('/v1/videos', { method: 'POST', token: t.token, body: form });
    expect(r.status).toBe(200);
    expect(lastSynthesisBody(t.h).input.media).toEqual([
      { type: 'reference_video', url: VID(7) },
      { type: 'reference_image', url: IMG(7) },
    ]);
  });
});

describe('multipart field names that reach a prototype', () => {
  it('`__proto__[x]`, `constructor[prototype][x]`, `a[__proto__][x]` are refused (400) and pollute nothing: the next JSON chat still works', async () => {
    for (const name of ['__proto__[stream]', 'constructor[prototype][stream]', 'input_reference[__proto__][stream]']) {
      const form = new FormData();
      form.append('model', 'wnx2.7-t2v');
      form.append('prompt', 'cat');
      form.append(name, 'yes');
      const r = await t.h.fetch('/v1/videos', { method: 'POST', token: t.token, body: form });
      expect(r.status).toBe(400);
      const body = (await r.json()) as BErr;
      expect(body.error.code).toBe('invalid_parameter');
      expect(body.error.param).toBe(name);
      expect(({} as Record<string, unknown>).stream).toBeUndefined();
    }
    const chat = await t.h.fetch('/v1/chat/completions', {
      method: 'POST',
      token: t.token,
      json: { model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'after' }] },
    });
    expect(chat.status).toBe(200);
  });
});

describe('reference mapping, observed at the simulator', () => {
  const cases: Array<[string, Record<string, unknown>, string, Array<[string, string]>]> = [
    ['hhx-1.1-t2v', {}, 'happyhorse-1.1-t2v', []],
    ['wnx2.7-t2v', {}, 'wan2.7-t2v', []],
    ['hhx-1.1-i2v', { input_reference: { image_url: IMG(1) } }, 'happyhorse-1.1-i2v', [['first_frame', IMG(1)]]],
    ['hhx-1.1-i2v', { input_image: IMG(2) }, 'happyhorse-1.1-i2v', [['first_frame', IMG(2)]]],
    [
      'hhx-1.1-r2v',
      { input_reference: [{ image_url: IMG(1) }, { image_url: IMG(2) }, IMG(3)] },
      'happyhorse-1.1-r2v',
      [
        ['reference_image', IMG(1)],
        ['reference_image', IMG(2)],
        ['reference_image', IMG(3)],
      ],
    ],
    [
      'hhx-1.1-r2v',
      { input_reference: Array.from({ length: 9 }, (_, i) => ({ image_url: IMG(i) })) },
      'happyhorse-1.1-r2v',
      Array.from({ length: 9 }, (_, i) => ['reference_image', IMG(i)] as [string, string]),
    ],
    ['hhx-1.0-i2v', { input_reference: IMG(4) }, 'happyhorse-1.0-i2v', [['first_frame', IMG(4)]]],
    ['hhx-1.0-i2v', { input_image: { image_url: IMG(5) } }, 'happyhorse-1.0-i2v', [['first_frame', IMG(5)]]],
    ['hhx-1.0-r2v', { input_reference: { image_url: IMG(6) } }, 'happyhorse-1.0-r2v', [['reference_image', IMG(6)]]],
    ['hhx-1.0-r2v', { input_reference: IMG(6) }, 'happyhorse-1.0-r2v', [['reference_image', IMG(6)]]],
    ['wnx2.7-i2v', { input_reference: IMG(1) }, 'wan2.7-i2v', [['first_frame', IMG(1)]]],
    [
      'wnx2.7-i2v',
      { input_reference: [IMG(1), IMG(2)] },
      'wan2.7-i2v',
      [
        ['first_frame', IMG(1)],
        ['last_frame', IMG(2)],
      ],
    ],
    ['wnx2.7-i2v', { input_reference: VID(1) }, 'wan2.7-i2v', [['first_clip', VID(1)]]],
    [
      'wnx2.7-i2v',
      { input_reference: [VID(1), IMG(2)] },
      'wan2.7-i2v',
      [
        ['first_clip', VID(1)],
        ['last_frame', IMG(2)],
      ],
    ],
    ['wnx2.7-i2v-20260115', { input_reference: IMG(3) }, 'wan2.7-i2v-20260115', [['first_frame', IMG(3)]]],
    [
      'wnx2.7-r2v',
      { references: { video: [VID(1), VID(2)] }, input_reference: { image_url: IMG(1) } },
      'wan2.7-r2v',
      [
        ['reference_video', VID(1)],
        ['reference_video', VID(2)],
        ['reference_image', IMG(1)],
      ],
    ],
    ['hhx-1.0-video-edit', { references: { video: [VID(3)] } }, 'happyhorse-1.0-video-edit', [['video', VID(3)]]],
    [
      'hhx-1.0-video-edit',
      { references: { video: [VID(3)] }, input_reference: { image_url: IMG(8) } },
      'happyhorse-1.0-video-edit',
      [
        ['video', VID(3)],
        ['reference_image', IMG(8)],
      ],
    ],
    [
      'wnx2.7-videoedit',
      { references: { video: ['https://cdn.example.com/clip.MOV'] }, input_reference: { image_url: IMG(9) } },
      'wan2.7-videoedit',
      [
        ['video', 'https://cdn.example.com/clip.MOV'],
        ['reference_image', IMG(9)],
      ],
    ],
  ];
  it.each(cases)('%s %j → %s %j', async (model, extra, upstream, media) => {
    const r = await createVideo(t.h, t.token, { model, prompt: 'character1 waves', ...extra });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    const sent = lastSynthesisBody(t.h);
    expect(sent.model).toBe(upstream);
    expect((sent.input.media ?? []).map((m) => [m.type, m.url])).toEqual(media);
  });

  it('upstream parameters follow each model: no ratio/duration for the HappyHorse edit, hhx-1.1 defaults to 1080P', async () => {
    await createVideo(t.h, t.token, {
      model: 'hhx-1.0-video-edit',
      prompt: 'x',
      references: { video: [VID(1)] },
      seconds: 5,
      size: '1280x720',
    });
    const edit = lastSynthesisBody(t.h).parameters;
    expect(edit.duration).toBeUndefined();
    expect(edit.ratio).toBeUndefined();
    await createVideo(t.h, t.token, { model: 'hhx-1.1-i2v', input_image: IMG(1) });
    expect(lastSynthesisBody(t.h).parameters).toMatchObject({ resolution: '1080P', duration: 5 });
    expect(lastSynthesisBody(t.h).parameters.ratio).toBeUndefined();
    await createVideo(t.h, t.token, { model: 'hhx-1.1-t2v', prompt: 'x', resolution: '720p' });
    expect(lastSynthesisBody(t.h).parameters.resolution).toBe('720P');
  });
});
