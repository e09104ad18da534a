// Image generation and editing: one upstream call (never repeated once it may have reached the upstream: each
// call produces and bills images), optional b64 conversion through src/net, and one charge per image delivered.
import type { UpstreamClient } from '../adapters/http-client.ts';
import { downloadAsBase64 } from '../adapters/dashscope/images-b64.ts';
import { generateImages, type ImageResult } from '../adapters/dashscope/images.ts';
import type { ResolvedModel } from '../catalogue/types.ts';
import type { Config } from '../config/config.ts';
import type { JsonObject } from '../json/json.ts';
import { checkImageCount, checkModelFor, parseCommon, type ImageRequest } from '../contracts/images.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { resultDownloadPolicy, type SafeNet } from '../net/index.ts';
import { apiKeyTarget } from '../routing/channel-target.ts';
import type { CallContext } from './call.ts';
import { chargeImages } from './charge.ts';
import { resolveVisibleModel, type ModelAccessDeps } from './model-access.ts';
import { releaseReservation, upstreamCall, type UpstreamCallDeps } from './upstream-call.ts';

export interface ImageDeps extends ModelAccessDeps, UpstreamCallDeps {
  readonly upstream: UpstreamClient;
  readonly config: Config;
}

/** Downloads URL results for b64_json (result hosts only). */
export type ImageNet = Pick<SafeNet, 'fetch'>;

type ImageItem = { url: string } | { b64_json: string };

export const NO_OUTPUT_MESSAGE =
  'The image edit produced no output. Check that every images[].image_url is publicly reachable by the upstream (not a private, local or expired address) and that the model is an image-edit model (qwx-image-2.0, qwx-image-2.0-pro or qwx-image-edit-plus)';

/** POST /v1/images/generations: a prompt, no input images. */
export function generate(deps: ImageDeps, net: ImageNet, call: CallContext, body: JsonObject) {
  const r = resolveVisibleModel(deps, call, body.model);
  checkModelFor('generate', r.entry, r.publicName);
  if (body.images !== undefined || body.image !== undefined) {
    throw new GatewayError(
      'invalid_parameter',
      'Input images belong to POST /v1/images/edits; generation takes only a prompt',
      { param: 'images' },
    );
  }
  return run(deps, net, call, r, parseCommon(body, 'generate', r.entry, []));
}

/** POST /v1/images/edits: the fields and the input images (URLs or data URIs), however they were sent. */
export function edit(deps: ImageDeps, net: ImageNet, call: CallContext, fields: JsonObject, images: string[]) {
  const r = resolveVisibleModel(deps, call, fields.model);
  checkModelFor('edit', r.entry, r.publicName);
  checkImageCount(images, r.entry, r.publicName);
  return run(deps, net, call, r, parseCommon(fields, 'edit', r.entry, images));
}

/** Run one image request: the upstream call, b64 delivery when asked, and one charge per image delivered. */
async function run(deps: ImageDeps, net: ImageNet, req: CallContext, r: ResolvedModel, ir: ImageRequest) {
  // connect-only: a call that may have reached the upstream is never sent again (it would produce and bill twice).
  const result = await upstreamCall(
    deps,
    req,
    {
      entry: r.entry,
      upstreamModel: r.upstreamModel,
      retry: 'connect-only',
      quota: { reserve: () => ({ kind: 'images', images: ir.n }) },
    },
    (ch) => generateImages(deps.upstream, apiKeyTarget(ch), ir, r.upstreamModel),
  );
  req.state.upstreamRequestId = result.upstreamRequestId;
  const produced = result.urls.length + result.b64.length;
  req.state.usage = { images: 0, requested: ir.n, produced };
  let data: ImageItem[];
  try {
    if (produced === 0) throw noOutput(ir, result);
    data = await deliver(deps, net, req, ir, result);
  } catch (e) {
    // Nothing delivered, nothing charged: the reservation goes back to the quota.
    await releaseReservation(deps.meter, req);
    throw e;
  }
  await chargeImages(deps.meter, req, r, data.length, result.upstreamRequestId);
  req.state.usage = { images: data.length, requested: ir.n, produced };
  const size = ir.size ?? (result.width && result.height ? { width: result.width, height: result.height } : null);
  return {
    created: Math.floor(Date.now() / 1000),
    data,
    ...(size ? { size: `${size.width}x${size.height}` } : {}),
    usage: { images: data.length },
  };
}

function noOutput(ir: ImageRequest, result: ImageResult): GatewayError {
  const o = result.upstreamRequestId ? { upstreamRequestId: result.upstreamRequestId } : {};
  if (ir.mode === 'edit') return new GatewayError('image_edit_no_output', NO_OUTPUT_MESSAGE, { ...o, param: 'images' });
  return new GatewayError(
    'upstream_error',
    'The upstream produced no image for this prompt; nothing was charged. Try again or rephrase the prompt',
    o,
  );
}

/**
 * The items to return. For b64_json, URL results are downloaded (result hosts only): what downloads is
 * returned and charged; when nothing does, the request fails and nothing is charged — the client got no image.
 */
async function deliver(
  deps: ImageDeps,
  net: ImageNet,
  req: CallContext,
  ir: ImageRequest,
  result: ImageResult,
): Promise<ImageItem[]> {
  if (ir.responseFormat === 'url')
    return [...result.urls.map((url) => ({ url })), ...result.b64.map((b64_json) => ({ b64_json }))];
  const items: ImageItem[] = result.b64.map((b64_json) => ({ b64_json }));
  if (result.urls.length === 0) return items;
  const got = await downloadAsBase64(net, result.urls, resultDownloadPolicy(deps.config));
  items.push(...got.b64.map((b64_json) => ({ b64_json })));
  const first = got.failures[0];
  if (first) {
    req.log.warn(
      {
        produced: result.urls.length + result.b64.length,
        delivered: items.length,
        error_code: first.code,
        reason: first.message,
        upstream_request_id: result.upstreamRequestId ?? undefined,
      },
      'image b64 conversion failed',
    );
  }
  if (items.length === 0 && first) {
    const n = result.urls.length;
    throw new GatewayError(
      first.code,
      `The upstream produced ${n} image${n === 1 ? '' : 's'} but ${n === 1 ? 'it' : 'they'} could not be converted to b64_json (${first.message}). Nothing was charged; retry, or request response_format=url`,
      result.upstreamRequestId ? { upstreamRequestId: result.upstreamRequestId } : {},
    );
  }
  return items;
}
