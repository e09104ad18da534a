// Reference URLs a client gives for the upstream to fetch (input_reference, image_url, video_url, image_list, and
// callback_url for the gateway itself) name a public host: an IP literal that is loopback, private, link-local or
// the metadata address — in any spelling, IPv4-in-IPv6 forms included — is refused before any upstream call.
import { describe, expect, it } from 'vitest';
import type { BErr, VidxEnvelope } from '../support/error-shapes.ts';
import { postJson, useHarness } from '../support/harness.ts';
import { createVideo } from '../support/videos.ts';
import { call } from '../support/vidx.ts';

const t = useHarness({ env: { TOLLWAY_TASK_POLLER: '0' } });

const PRIVATE_HOSTS = [
  '127.0.0.1',
  '10.1.2.3',
  '169.254.169.254',
  '0x7f.1',
  '2130706433',
  '[::1]',
  '[fe80::1]',
  '[::ffff:10.0.0.1]',
  '[::ffff:0:a00:1]',
  '[::a00:1]',
  '[2002:a9fe:a9fe::]',
  '[64:ff9b::7f00:1]',
  '[2001:0:4136:e378:8000:63bf:80ff:fffe]',
];
const upstreamCalls = () => t.h.sim.ctx.recorded.length;

describe('reference URLs with non-public literal hosts are refused before any upstream call', () => {
  it.each(PRIVATE_HOSTS)('/v1/videos input_reference http://%s/… → 400 invalid_reference', async (host) => {
    const before = upstreamCalls();
    const r = await createVideo(t.h, t.token, {
      model: 'wnx2.7-i2v',
      prompt: 'x',
      input_reference: `http://${host}/a.png`,
    });
    expect(r.status).toBe(400);
    const err = (r.json as BErr).error;
    expect(err.code).toBe('invalid_reference');
    expect(err.message).toMatch(/must be a public http\(s\) URL \(not a .*address/);
    expect(upstreamCalls()).toBe(before);
  });

  it('/v1/videos references.video with a private literal → 400 invalid_reference', async () => {
    const r = await createVideo(t.h, t.token, {
      model: 'wnx2.7-r2v',
      prompt: 'x',
      references: { video: ['http://[::ffff:0:c0a8:1]/v.mp4'] },
    });
    expect(r.status).toBe(400);
    expect((r.json as BErr).error.code).toBe('invalid_reference');
  });

  it('/v1/images/edits image_url with a private literal → 400 invalid_reference', async () => {
    const before = upstreamCalls();
    const r = await postJson(t.h, t.token, '/v1/images/edits', {
      model: 'qwx-image-2.0',
      prompt: 'x',
      images: [{ image_url: 'https://[2002:c0a8:1::]/a.png' }],
    });
    expect(r.status).toBe(400);
    expect((JSON.parse(r.text) as BErr).error.code).toBe('invalid_reference');
    expect(upstreamCalls()).toBe(before);
  });

  it('chat image_url part with a metadata literal → 400 invalid_parameter', async () => {
    const before = upstreamCalls();
    const r = await postJson(t.h, t.token, '/v1/chat/completions', {
      model: 'qwx3.7-plus',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this' },
            { type: 'image_url', image_url: { url: 'http://[::169.254.169.254]/latest/meta-data' } },
          ],
        },
      ],
    });
    expect(r.status).toBe(400);
    expect((JSON.parse(r.text) as BErr).error.code).toBe('invalid_parameter');
    expect(upstreamCalls()).toBe(before);
  });

  it('family A init-selection video_url with a private literal → invalid parameter envelope', async () => {
    const r = await call(t.h, t.token, 'POST', '/vidx/v1/videos/multi-elements/init-selection', {
      video_url: 'http://192.168.0.10/clip.mp4',
    });
    expect(r.status).toBe(400);
    expect((r.body as VidxEnvelope<unknown>).message).toMatch(/video_url must be a public/);
  });

  it('family A callback_url in 6to4 and SIIT clothing → refused', async () => {
    for (const url of [
      'http://[2002:7f00:1::]/hook',
      'http://[::ffff:0:a00:1]/hook',
      'http://[2001:0:4136:e378::f5ff:fffe]/hook',
    ]) {
      const r = await call(t.h, t.token, 'POST', '/vidx/v1/videos/text2video', {
        model_name: 'vidx-v2-5',
        prompt: 'x',
        callback_url: url,
      });
      expect(r.status, url).toBe(400);
      expect((r.body as VidxEnvelope<unknown>).message, url).toMatch(/callback_url must be a public address/);
    }
  });

  it('public literals and host names still pass', async () => {
    const r = await createVideo(t.h, t.token, {
      model: 'wnx2.7-i2v',
      prompt: 'x',
      input_reference: 'http://[2002:808:808::1]/a.png',
    });
    expect(r.status).toBe(200);
    const s = await createVideo(t.h, t.token, {
      model: 'wnx2.7-i2v',
      prompt: 'x',
      input_reference: 'https://img.example.com/a.png',
    });
    expect(s.status).toBe(200);
  });
});
