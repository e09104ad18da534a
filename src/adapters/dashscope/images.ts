// Qwen-Image over the sync native multimodal-generation endpoint:
// ImageRequest → {model, input.messages[{role:user, content:[{image}…,{text}]}], parameters{size:"W*H", n…}}
// and back: every {image} part of every choice is one produced image.
import { isObject } from '../../json/json.ts';
import { upstreamSize, type ImageRequest } from '../../contracts/images.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { UpstreamClient } from '../http-client.ts';
import { readJson } from '../read-json.ts';
import type { UpstreamTarget } from '../types.ts';
import { retryAfterMs } from '../retry-after.ts';
import { dashscopeError } from './errors.ts';

export const IMAGE_GENERATION_PATH = '/api/v1/services/aigc/multimodal-generation/generation';

export interface ImageResult {
  /** Result URLs as the upstream returned them (signed, expiring). */
  urls: string[];
  /** Inline base64 results, when the upstream sent them instead of URLs. */
  b64: string[];
  width: number | null;
  height: number | null;
  /** The upstream's own count (usage.image_count), when reported. */
  reportedCount: number | null;
  upstreamRequestId: string | null;
}

export function buildImageBody(req: ImageRequest, upstreamModel: string): Record<string, unknown> {
  const content: Array<Record<string, string>> = req.images.map((image) => ({ image }));
  content.push({ text: req.prompt });
  const parameters: Record<string, unknown> = { n: req.n };
  if (req.size) parameters.size = upstreamSize(req.size);
  if (req.negativePrompt !== undefined) parameters.negative_prompt = req.negativePrompt;
  if (req.seed !== undefined) parameters.seed = req.seed;
  parameters.watermark = req.watermark ?? false;
  if (req.promptExtend !== undefined) parameters.prompt_extend = req.promptExtend;
  return { model: upstreamModel, input: { messages: [{ role: 'user', content }] }, parameters };
}

const DATA_PREFIX = /^data:image\/[a-z0-9.+-]+;base64,/i;

/** Pull the produced images out of a 200 answer; a body without output.choices is an upstream error. */
export function parseImageResponse(body: unknown): ImageResult {
  if (!isObject(body)) throw new GatewayError('upstream_error', 'The upstream returned a malformed image response');
  const upstreamRequestId = typeof body.request_id === 'string' ? body.request_id : null;
  // A failure can arrive as HTTP 200 with a top-level code (as task failures do).
  if (typeof body.code === 'string' && body.code !== '') throw dashscopeError(400, body);
  const output = body.output;
  if (!isObject(output) || !Array.isArray(output.choices)) {
    throw new GatewayError(
      'upstream_error',
      'The upstream returned an image response without output',
      upstreamRequestId ? { upstreamRequestId } : {},
    );
  }
  const urls: string[] = [];
  const b64: string[] = [];
  for (const choice of output.choices) {
    const content = isObject(choice) && isObject(choice.message) ? choice.message.content : undefined;
    if (!Array.isArray(content)) continue;
    for (const part of content) {
      if (!isObject(part) || typeof part.image !== 'string' || part.image === '') continue;
      if (DATA_PREFIX.test(part.image)) b64.push(part.image.replace(DATA_PREFIX, ''));
      else urls.push(part.image);
    }
  }
  const usage = isObject(body.usage) ? body.usage : {};
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return {
    urls,
    b64,
    width: num(usage.width),
    height: num(usage.height),
    reportedCount: num(usage.image_count),
    upstreamRequestId,
  };
}

/** One sync call. Errors (HTTP or in-body) become GatewayErrors with the upstream's readable meaning. */
export async function generateImages(
  client: UpstreamClient,
  target: UpstreamTarget,
  req: ImageRequest,
  upstreamModel: string,
  signal?: AbortSignal,
): Promise<ImageResult> {
  const res = await client.request({
    method: 'POST',
    baseUrl: target.baseUrl,
    path: IMAGE_GENERATION_PATH,
    headers: { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(buildImageBody(req, upstreamModel)),
    ...(signal ? { signal } : {}),
  });
  const body = await readJson(res);
  if (res.statusCode < 200 || res.statusCode > 299)
    throw dashscopeError(res.statusCode, body, retryAfterMs(res.headers['retry-after']));
  return parseImageResponse(body);
}
