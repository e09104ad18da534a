import { describe, expect, it } from 'vitest';
import { downloadAsBase64 } from '../../../src/adapters/dashscope/images-b64.ts';
import { buildImageBody, parseImageResponse } from '../../../src/adapters/dashscope/images.ts';
import type { ImageRequest } from '../../../src/contracts/images.ts';
import { GatewayError } from '../../../src/errors/gateway-error.ts';
import type { SafeFetchOptions, SafeFetchResult } from '../../../src/net/index.ts';

const base: ImageRequest = {
  mode: 'edit',
  prompt: 'make it blue',
  n: 2,
  responseFormat: 'url',
  images: ['https://e.com/a.png', 'data:image/png;base64,AAAA'],
};

describe('Qwen-Image adapter', () => {
  it('builds the native body: images then text, size as W*H, watermark off by default', () => {
    const body = buildImageBody(
      { ...base, size: { width: 1024, height: 768 }, seed: 7, negativePrompt: 'blur' },
      'qwen-image-2.0',
    );
    expect(body).toEqual({
      model: 'qwen-image-2.0',
      input: {
        messages: [
          {
            role: 'user',
            content: [
              { image: 'https://e.com/a.png' },
              { image: 'data:image/png;base64,AAAA' },
              { text: 'make it blue' },
            ],
          },
        ],
      },
      parameters: { n: 2, size: '1024*768', seed: 7, negative_prompt: 'blur', watermark: false },
    });
    expect(
      (buildImageBody({ ...base, images: [] }, 'm') as { parameters: Record<string, unknown> }).parameters.size,
    ).toBeUndefined();
  });

  it('collects every image part of every choice; inline data URIs become b64', () => {
    const r = parseImageResponse({
      output: {
        choices: [
          { message: { content: [{ image: 'https://r/1.png' }, { text: 'ignored' }] } },
          { message: { content: [{ image: 'data:image/png;base64,QUJD' }, { image: 'https://r/2.png' }] } },
        ],
      },
      usage: { width: 1024, height: 1024, image_count: 3 },
      request_id: 'up-1',
    });
    expect(r).toEqual({
      urls: ['https://r/1.png', 'https://r/2.png'],
      b64: ['QUJD'],
      width: 1024,
      height: 1024,
      reportedCount: 3,
      upstreamRequestId: 'up-1',
    });
  });

  it('an empty content list is zero images, not an error; missing output or an in-body code is', () => {
    expect(parseImageResponse({ output: { choices: [{ message: { content: [] } }] }, request_id: 'x' }).urls).toEqual(
      [],
    );
    expect(() => parseImageResponse({ request_id: 'x' })).toThrow(/without output/);
    const e = (() => {
      try {
        parseImageResponse({
          code: 'DataInspectionFailed',
          message: 'Input data may contain inappropriate content.',
          request_id: 'r9',
        });
      } catch (err) {
        return err as GatewayError;
      }
      throw new Error('expected a throw');
    })();
    expect(e.code).toBe('upstream_content_filtered');
    expect(e.upstreamRequestId).toBe('r9');
  });
});

describe('downloadAsBase64', () => {
  it('keeps successes in order, reports failures, passes the policy and limits', async () => {
    const seen: SafeFetchOptions[] = [];
    const net = {
      fetch: async (url: string | URL, o: SafeFetchOptions): Promise<SafeFetchResult> => {
        seen.push(o);
        if (String(url).includes('bad')) throw new GatewayError('download_refused', 'nope');
        return { status: 200, headers: {}, body: Buffer.from(String(url)), finalUrl: String(url) };
      },
    };
    const out = await downloadAsBase64(
      net,
      ['https://r/a', 'https://r/bad', 'https://r/c'],
      { allowHosts: ['r'] },
      { maxBytes: 10, timeoutMs: 5 },
    );
    expect(out.b64.map((b) => Buffer.from(b, 'base64').toString())).toEqual(['https://r/a', 'https://r/c']);
    expect(out.failures.map((f) => f.code)).toEqual(['download_refused']);
    expect(seen[0]).toMatchObject({ allowHosts: ['r'], maxBytes: 10, timeoutMs: 5 });
  });
});
