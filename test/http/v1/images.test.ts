// POST /v1/images/generations: sizes, n, url and b64_json answers, partial results, validation before the upstream,
// quota, and a charge per image delivered. Edits: images-edits.test.ts.
import type OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { PNG_SIGNATURE } from '../../../simulator/dashscope/images-png.ts';
import { useHarness } from '../../support/harness.ts';
import { openaiClient } from '../../support/sdk.ts';
import { errorOf, IMAGE_PRICE as PRICE, imageCalls } from '../../support/images.ts';
import { ledgerOfRequest, ledgerOfToken, requestLogRow } from '../../support/store-rows.ts';

const t = useHarness();
let client: OpenAI;

beforeAll(() => {
  client = openaiClient(t.h, t.token);
});

function post(path: string, json: unknown) {
  return t.h.fetch(`/v1${path}`, { method: 'POST', token: t.token, json });
}

describe('POST /v1/images/generations (openai SDK)', () => {
  it('url: n images of the requested size, size translated to W*H, one charge per image', async () => {
    const before = imageCalls(t.h).length;
    const { data: r, response } = await client.images
      .generate({ model: 'qwx-image-2.0', prompt: 'a lighthouse at dusk', n: 2, size: '1024x1024' })
      .withResponse();
    expect(r.data).toHaveLength(2);
    for (const d of r.data!) {
      expect(d.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/results\/img\/[a-f0-9]{32}\.png\?Expires=/);
      expect(d.b64_json).toBeUndefined();
    }
    expect(r.created).toBeGreaterThan(0);
    const sent = imageCalls(t.h).slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.model).toBe('qwen-image-2.0');
    expect(sent[0]!.parameters).toMatchObject({ size: '1024*1024', n: 2 });
    expect(sent[0]!.input.messages[0]!.content).toEqual([{ text: 'a lighthouse at dusk' }]);
    const rid = response.headers.get('x-gateway-request-id')!;
    const rows = await ledgerOfRequest(t.h, rid);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.kind).toBe('images');
    expect(rows[0]!.amount).toBe(2 * PRICE);
    expect(rows[0]!.model).toBe('qwx-image-2.0');
    expect(rows[0]!.upstream_request_id).toBeTruthy();
    const log = await requestLogRow(t.h, rid);
    expect(log?.amount).toBe(2 * PRICE);
    expect(JSON.parse(log!.usage!)).toEqual({ images: 2, requested: 2, produced: 2 });
  });

  it('b64_json: the gateway downloads the result and returns the PNG bytes', async () => {
    const downloadsBefore = t.h.sim.requestsTo('/results/img/').length;
    const r = await client.images.generate({
      model: 'qwx-image-2.0-pro',
      prompt: 'a teapot',
      response_format: 'b64_json',
    });
    expect(r.data).toHaveLength(1);
    const png = Buffer.from(r.data![0]!.b64_json!, 'base64');
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(r.data![0]!.url).toBeUndefined();
    expect(t.h.sim.requestsTo('/results/img/').length - downloadsBefore).toBe(1);
    // Default size: none sent, the upstream's own default reported back.
    expect((r as unknown as { size: string }).size).toBe('2048x2048');
  });

  it('partial result (n=4, 2 produced): returns and charges only 2', async () => {
    const { data: r, response } = await client.images
      .generate({ model: 'qwx-image-2.0', prompt: 'sim-fault:partial cats', n: 4, size: '768x768' })
      .withResponse();
    expect(r.data).toHaveLength(2);
    const rid = response.headers.get('x-gateway-request-id')!;
    const rows = await ledgerOfRequest(t.h, rid);
    expect(rows.map((x) => x.amount)).toEqual([2 * PRICE]);
    expect(JSON.parse(rows[0]!.quantities)).toMatchObject({ images: 2 });
    expect(JSON.parse((await requestLogRow(t.h, rid))!.usage!)).toEqual({ images: 2, requested: 4, produced: 2 });
  });

  it('b64_json with some result files missing: returns and charges only the images delivered', async () => {
    const { data: r, response } = await client.images
      .generate({ model: 'qwx-image-2.0', prompt: 'sim-result-gone:1 birds', n: 3, response_format: 'b64_json' })
      .withResponse();
    expect(r.data).toHaveLength(2);
    const rid = response.headers.get('x-gateway-request-id')!;
    expect((await ledgerOfRequest(t.h, rid)).map((x) => x.amount)).toEqual([2 * PRICE]);
    expect(JSON.parse((await requestLogRow(t.h, rid))!.usage!)).toEqual({ images: 2, requested: 3, produced: 3 });
    expect(t.h.logs.some((l) => l.includes('image b64 conversion failed') && l.includes(rid))).toBe(true);
  });

  it('b64_json with no result downloadable: download_failed, nothing charged', async () => {
    const res = await post('/images/generations', {
      model: 'qwx-image-2.0',
      prompt: 'sim-result-gone:2 birds',
      n: 2,
      response_format: 'b64_json',
    });
    const e = await errorOf(res);
    expect([e.status, e.code]).toEqual([502, 'download_failed']);
    expect(e.message).toMatch(/HTTP 404/);
    expect(e.message).toMatch(/Nothing was charged/);
    expect(await ledgerOfRequest(t.h, res.headers.get('x-gateway-request-id')!)).toHaveLength(0);
  });

  it('validates size, n and response_format before calling the upstream', async () => {
    const before = imageCalls(t.h).length;
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ size: '1024*1024' }, 'invalid_size', 'size'],
      [{ size: 'large' }, 'invalid_size', 'size'],
      [{ size: '256x256' }, 'invalid_size', 'size'],
      [{ size: '4096x4096' }, 'invalid_size', 'size'],
      [{ n: 0 }, 'invalid_n', 'n'],
      [{ n: 7 }, 'invalid_n', 'n'],
      [{ n: 1.5 }, 'invalid_n', 'n'],
      [{ n: 'abc' }, 'invalid_n', 'n'],
      [{ response_format: 'png' }, 'invalid_parameter', 'response_format'],
      [{ prompt: '' }, 'missing_parameter', 'prompt'],
    ];
    for (const [extra, code, param] of cases) {
      const e = await errorOf(await post('/images/generations', { model: 'qwx-image-2.0', prompt: 'x', ...extra }));
      expect([e.status, e.code, e.param], JSON.stringify(extra)).toEqual([400, code, param]);
    }
    const big = await errorOf(
      await post('/images/generations', { model: 'qwx-image-2.0', prompt: 'x', size: '256x256' }),
    );
    expect(big.message).toMatch(/between 512×512 .* and 2048×2048/);
    expect(imageCalls(t.h).length).toBe(before);
  });

  it('an exhausted quota is refused before the upstream is called', async () => {
    // Each call reserves its price first: two fit the quota, a third would pass it.
    const tok = await t.h.token({ quota: 2 * PRICE + PRICE / 2 });
    const call = () =>
      t.h.fetch('/v1/images/generations', {
        method: 'POST',
        token: tok.secret,
        json: { model: 'qwx-image-2.0', prompt: 'q' },
      });
    expect((await call()).status).toBe(200);
    expect((await call()).status).toBe(200);
    const before = imageCalls(t.h).length;
    const e = await errorOf(await call());
    expect([e.status, e.code]).toEqual([429, 'insufficient_quota']);
    expect(imageCalls(t.h).length).toBe(before);
    expect((await ledgerOfToken(t.h, tok.id)).reduce((a, r) => a + r.amount, 0)).toBe(2 * PRICE);
  });

  it('refuses edit-only and non-image models with a clear error', async () => {
    const edit = await errorOf(await post('/images/generations', { model: 'qwx-image-edit-plus', prompt: 'x' }));
    expect([edit.status, edit.code]).toEqual([400, 'model_not_supported']);
    expect(edit.message).toMatch(/image-edit model and cannot generate/);
    const chat = await errorOf(await post('/images/generations', { model: 'qwx3.7-plus', prompt: 'x' }));
    expect(chat.code).toBe('model_not_supported');
    expect(chat.message).toMatch(/not an image model/);
    const unknown = await errorOf(await post('/images/generations', { model: 'qwx-image-9', prompt: 'x' }));
    expect([unknown.status, unknown.code]).toEqual([404, 'model_not_found']);
  });

  it('an upstream failure is returned with its meaning, is not retried, and is not charged', async () => {
    const before = imageCalls(t.h).length;
    const res = await post('/images/generations', { model: 'qwx-image-2.0', prompt: 'sim-fault:status:500', n: 2 });
    const e = await errorOf(res);
    expect([e.status, e.code]).toEqual([502, 'upstream_error']);
    expect(imageCalls(t.h).length - before).toBe(1);
    const rid = res.headers.get('x-gateway-request-id')!;
    expect(await ledgerOfRequest(t.h, rid)).toHaveLength(0);
    const log = await requestLogRow(t.h, rid);
    expect(log?.amount).toBe(0);
    expect(log?.error_code).toBe('upstream_error');
    const limited = await errorOf(
      await post('/images/generations', { model: 'qwx-image-2.0', prompt: 'sim-fault:status:429' }),
    );
    expect([limited.status, limited.code]).toEqual([429, 'upstream_rate_limited']);
  });

  it('the token was charged exactly the successful images of this file', async () => {
    const rows = await ledgerOfToken(t.h, t.tokenId);
    const total = rows.reduce((a, r) => a + r.amount, 0);
    // 2 (url) + 1 (b64, pro at 500_000) + 2 (partial) + 2 (b64, one file missing)
    expect(total).toBe(2 * PRICE + 500_000 + 2 * PRICE + 2 * PRICE);
  });
});
