// POST /v1/images/edits: uploaded files (multipart, as the openai SDK sends them) and JSON image URLs, their limits,
// multipart numbers, an edit with no output, and a charge per image delivered.
import type OpenAI from 'openai';
import { toFile } from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { PNG_SIGNATURE, solidPng } from '../../../simulator/dashscope/images-png.ts';
import { useHarness } from '../../support/harness.ts';
import { openaiClient } from '../../support/sdk.ts';
import { errorOf, form, IMAGE_PRICE as PRICE, imageCalls } from '../../support/images.ts';
import { ledgerOfRequest, ledgerOfToken, requestLogRow } from '../../support/store-rows.ts';

const t = useHarness();
let client: OpenAI;

beforeAll(() => {
  client = openaiClient(t.h, t.token);
});

function post(path: string, json: unknown) {
  return t.h.fetch(`/v1${path}`, { method: 'POST', token: t.token, json });
}

describe('POST /v1/images/edits', () => {
  it('openai SDK with an uploaded file: sent upstream as a data URI, n as a multipart string', async () => {
    const before = imageCalls(t.h).length;
    const png = solidPng('input-a');
    const { data: r, response } = await client.images
      .edit({
        model: 'qwx-image-edit-plus',
        prompt: 'make it blue',
        image: await toFile(png, 'a.png', { type: 'image/png' }),
        n: 2,
        size: '1024x768',
      })
      .withResponse();
    expect(r.data).toHaveLength(2);
    const sent = imageCalls(t.h).slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.model).toBe('qwen-image-edit-plus');
    expect(sent[0]!.parameters).toMatchObject({ n: 2, size: '1024*768' });
    expect(sent[0]!.input.messages[0]!.content).toEqual([
      { image: `data:image/png;base64,${png.toString('base64')}` },
      { text: 'make it blue' },
    ]);
    expect((await ledgerOfRequest(t.h, response.headers.get('x-gateway-request-id')!))[0]!.amount).toBe(2 * PRICE);
  });

  it('openai SDK with several files (image[]) and b64_json', async () => {
    const before = imageCalls(t.h).length;
    const files = await Promise.all(['x', 'y'].map((s) => toFile(solidPng(s), `${s}.png`)));
    const r = await client.images.edit({
      model: 'qwx-image-2.0',
      prompt: 'merge them',
      image: files,
      response_format: 'b64_json',
    });
    expect(Buffer.from(r.data![0]!.b64_json!, 'base64').subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    const content = imageCalls(t.h).slice(before)[0]!.input.messages[0]!.content;
    expect(content.filter((c) => c.image?.startsWith('data:image/png;base64,'))).toHaveLength(2);
  });

  it('JSON images[].image_url (client.post): URLs passed to the upstream, never fetched by the gateway', async () => {
    const before = imageCalls(t.h).length;
    const downloads = t.h.sim.requestsTo('/results/img/').length;
    const urls = ['https://img.example.com/a.png', 'https://img.example.com/b.jpg'];
    const r = await client.post<OpenAI.ImagesResponse>('/images/edits', {
      body: { model: 'qwx-image-2.0', prompt: 'swap the sky', images: urls.map((image_url) => ({ image_url })) },
    });
    expect(r.data).toHaveLength(1);
    expect(r.data![0]!.url).toMatch(/\/results\/img\//);
    expect(imageCalls(t.h).slice(before)[0]!.input.messages[0]!.content).toEqual([
      { image: urls[0] },
      { image: urls[1] },
      { text: 'swap the sky' },
    ]);
    expect(t.h.sim.requestsTo('/results/img/').length).toBe(downloads);
  });

  it('more than 3 images → too_many_images; none → missing; bad URLs and files refused', async () => {
    const before = imageCalls(t.h).length;
    const four = Array.from({ length: 4 }, (_v, i) => ({ image_url: `https://img.example.com/${i}.png` }));
    const e = await errorOf(await post('/images/edits', { model: 'qwx-image-2.0', prompt: 'x', images: four }));
    expect([e.status, e.code, e.param]).toEqual([400, 'too_many_images', 'images']);
    expect(e.message).toMatch(/at most 3 input images/);
    const fourFiles = await t.h.fetch('/v1/images/edits', {
      method: 'POST',
      token: t.token,
      body: form(
        { model: 'qwx-image-2.0-pro', prompt: 'x' },
        [0, 1, 2, 3].map((i) => ['image[]', solidPng(String(i)), `${i}.png`] as [string, Buffer, string]),
      ),
    });
    expect((await errorOf(fourFiles)).code).toBe('too_many_images');
    expect((await errorOf(await post('/images/edits', { model: 'qwx-image-2.0', prompt: 'x' }))).code).toBe(
      'missing_parameter',
    );
    expect(
      (
        await errorOf(
          await post('/images/edits', {
            model: 'qwx-image-2.0',
            prompt: 'x',
            images: [{ image_url: 'file:///etc/passwd' }],
          }),
        )
      ).code,
    ).toBe('invalid_reference');
    const notImage = await t.h.fetch('/v1/images/edits', {
      method: 'POST',
      token: t.token,
      body: form({ model: 'qwx-image-2.0', prompt: 'x' }, [['image', Buffer.from('hello'), 'a.txt']]),
    });
    expect((await errorOf(notImage)).code).toBe('invalid_reference');
    expect(imageCalls(t.h).length).toBe(before);
  });

  it('multipart numbers are parsed: n "3" works, n "abc" is invalid_n', async () => {
    const file: [string, Buffer, string] = ['image', solidPng('m'), 'm.png'];
    const ok = await t.h.fetch('/v1/images/edits', {
      method: 'POST',
      token: t.token,
      body: form({ model: 'qwx-image-edit-plus', prompt: 'x', n: '3' }, [file]),
    });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { data: unknown[] }).data).toHaveLength(3);
    const bad = await t.h.fetch('/v1/images/edits', {
      method: 'POST',
      token: t.token,
      body: form({ model: 'qwx-image-edit-plus', prompt: 'x', n: 'abc' }, [file]),
    });
    const e = await errorOf(bad);
    expect([e.status, e.code, e.param]).toEqual([400, 'invalid_n', 'n']);
    expect(e.message).toMatch(/"abc"/);
  });

  it('an edit with no output → image_edit_no_output telling what to check; nothing charged', async () => {
    const res = await post('/images/edits', {
      model: 'qwx-image-edit-plus',
      prompt: 'sim-fault:no-output',
      images: [{ image_url: 'https://img.example.com/a.png' }],
    });
    const e = await errorOf(res);
    expect([e.status, e.code]).toEqual([422, 'image_edit_no_output']);
    expect(e.message).toMatch(/images\[\]\.image_url is publicly reachable/);
    expect(e.message).toMatch(/image-edit model/);
    const rid = res.headers.get('x-gateway-request-id')!;
    expect(await ledgerOfRequest(t.h, rid)).toHaveLength(0);
    expect(JSON.parse((await requestLogRow(t.h, rid))!.usage!)).toEqual({ images: 0, requested: 1, produced: 0 });
  });

  it('a generation-only or non-image model cannot edit', async () => {
    const e = await errorOf(
      await post('/images/edits', {
        model: 'qwx3.7-plus',
        prompt: 'x',
        images: [{ image_url: 'https://img.example.com/a.png' }],
      }),
    );
    expect([e.status, e.code]).toEqual([400, 'model_not_supported']);
  });

  it('the token was charged exactly the successful images of this file', async () => {
    const rows = await ledgerOfToken(t.h, t.tokenId);
    const total = rows.reduce((a, r) => a + r.amount, 0);
    // 2 (edit upload) + 1 (image[] b64) + 1 (JSON edit) + 3 (n "3")
    expect(total).toBe(2 * PRICE + PRICE + PRICE + 3 * PRICE);
  });
});
