// b64_json conversion only downloads from the configured result hosts; a refused or failed download is a
// clear error and the request is not charged (the client received no image).
import type OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { PNG_SIGNATURE } from '../../../simulator/dashscope/images-png.ts';
import { useHarness } from '../../support/harness.ts';
import { openaiClient } from '../../support/sdk.ts';
import { ledgerOfRequest, ledgerOfToken, requestLogRow } from '../../support/store-rows.ts';
import type { BErr } from '../../support/error-shapes.ts';

// The simulator's result origin is NOT trusted here and 127.0.0.1 is not a result host.
const t = useHarness({
  configure: (c) => {
    c.trustedResultOrigins.length = 0;
    c.allowPrivateNetwork = true;
  },
});
let client: OpenAI;

beforeAll(() => {
  client = openaiClient(t.h, t.token);
});

async function generateB64(n = 2) {
  return t.h.fetch('/v1/images/generations', {
    method: 'POST',
    token: t.token,
    json: { model: 'qwx-image-2.0', prompt: 'a boat', n, response_format: 'b64_json' },
  });
}

describe('b64_json download policy', () => {
  it('a result on a host outside the allow-list is not downloaded: download_refused, nothing charged', async () => {
    const downloads = t.h.sim.requestsTo('/results/img/').length;
    const res = await generateB64(2);
    expect(res.status).toBe(502);
    const e = ((await res.json()) as BErr).error;
    expect(e.code).toBe('download_refused');
    expect(e.message).toMatch(/produced 2 images but they could not be converted to b64_json/);
    expect(e.message).toMatch(/result-host allow-list/);
    expect(e.message).toMatch(/Nothing was charged/);
    expect(e.message).not.toMatch(/127\.0\.0\.1|results\/img/);
    expect(e.upstream_request_id).toBeTruthy();
    expect(t.h.sim.requestsTo('/results/img/').length).toBe(downloads);
    const rid = res.headers.get('x-gateway-request-id')!;
    expect(await ledgerOfRequest(t.h, rid)).toHaveLength(0);
    const log = await requestLogRow(t.h, rid);
    expect(log?.amount).toBe(0);
    expect(log?.error_code).toBe('download_refused');
    expect(JSON.parse(log!.usage!)).toEqual({ images: 0, requested: 2, produced: 2 });
    expect(t.h.logs.some((l) => l.includes('image b64 conversion failed') && l.includes(rid))).toBe(true);
  });

  it('plain http to an untrusted origin is refused when private networks are not allowed', async () => {
    t.h.config.allowPrivateNetwork = false;
    try {
      const res = await generateB64(1);
      const e = ((await res.json()) as BErr).error;
      expect(e.code).toBe('download_refused');
      expect(e.message).toMatch(/only https/);
    } finally {
      t.h.config.allowPrivateNetwork = true;
    }
  });

  it('url format still works (nothing to download) and is charged', async () => {
    const r = await client.images.generate({ model: 'qwx-image-2.0', prompt: 'a boat', n: 1 });
    expect(r.data![0]!.url).toMatch(/\/results\/img\//);
    expect((await ledgerOfToken(t.h, t.tokenId)).map((x) => x.amount)).toEqual([200_000]);
  });

  it('once the host is on the allow-list the same download succeeds', async () => {
    t.h.config.resultHosts.push('127.0.0.1');
    try {
      const r = await client.images.generate({ model: 'qwx-image-2.0', prompt: 'a boat', response_format: 'b64_json' });
      expect(Buffer.from(r.data![0]!.b64_json!, 'base64').subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    } finally {
      t.h.config.resultHosts.pop();
    }
  });
});
