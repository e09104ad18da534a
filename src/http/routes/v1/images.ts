// POST /v1/images/generations and /v1/images/edits (JSON, and multipart for edits as the openai SDK
// sends it). One sync upstream call (never repeated once it may have reached the upstream: each call
// produces and bills images), optional b64 conversion through src/net, and one charge per image returned.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { downloadAsBase64 } from '../../../adapters/dashscope/images-b64.ts';
import { generateImages, type ImageResult } from '../../../adapters/dashscope/images.ts';
import type { ResolvedModel } from '../../../catalogue/types.ts';
import { requireBody, type JsonObject } from '../../../contracts/fields.ts';
import { checkImageCount, checkImageRef, checkModelFor, parseCommon, parseJsonImages, uploadToDataUri, type ImageRequest } from '../../../contracts/images.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import { resultDownloadPolicy, sharedSafeNet, type SafeNet } from '../../../net/index.ts';
import type { Channel } from '../../../routing/channel-registry.ts';
import { withFailover } from '../../../routing/failover.ts';
import type { AppDeps } from '../../deps.ts';
import { isMultipart, readMultipart } from '../../multipart.ts';
import { principalOf } from '../../request-state.ts';
import { resolveVisibleModel } from './models.ts';

export interface ImageRouteOptions {
  /** Downloader for b64 conversion (tests may pass their own; default: the process-wide SafeNet). */
  net?: Pick<SafeNet, 'fetch'>;
}

type ImageItem = { url: string } | { b64_json: string };

export const NO_OUTPUT_MESSAGE =
  'The image edit produced no output. Check that every images[].image_url is publicly reachable by the upstream (not a private, local or expired address) and that the model is an image-edit model (qwx-image-2.0, qwx-image-2.0-pro or qwx-image-edit-plus)';

export function registerImageRoutes(scope: FastifyInstance, deps: AppDeps, opts: ImageRouteOptions = {}): void {
  const net = () => opts.net ?? sharedSafeNet();

  scope.post('/images/generations', async (req) => {
    if (isMultipart(req)) throw new GatewayError('unsupported_content_type', 'Image generation takes a JSON body (Content-Type: application/json)');
    const body = requireBody(req.body);
    const r = resolveVisibleModel(deps, req, body.model);
    checkModelFor('generate', r.entry, r.publicName);
    if (body.images !== undefined || body.image !== undefined) {
      throw new GatewayError('invalid_parameter', 'Input images belong to POST /v1/images/edits; generation takes only a prompt', { param: 'images' });
    }
    return run(deps, req, r, parseCommon(body, 'generate', r.entry, []), net());
  });

  scope.post('/images/edits', async (req) => {
    const { fields, images } = isMultipart(req) ? await readEditMultipart(req) : readEditJson(req.body);
    const r = resolveVisibleModel(deps, req, fields.model);
    checkModelFor('edit', r.entry, r.publicName);
    checkImageCount(images, r.entry, r.publicName);
    return run(deps, req, r, parseCommon(fields, 'edit', r.entry, images), net());
  });
}

function readEditJson(raw: unknown): { fields: JsonObject; images: string[] } {
  const body = requireBody(raw);
  // `images: [{image_url}]` is the contract; a bare `image` URL (or array) is accepted as well.
  const source = body.images ?? (typeof body.image === 'string' ? [body.image] : body.image);
  return { fields: body, images: parseJsonImages(source) };
}

/** multipart: `image` / `image[]` files (→ data URIs), optional `image_url` fields, the rest as strings. */
async function readEditMultipart(req: FastifyRequest): Promise<{ fields: JsonObject; images: string[] }> {
  const mp = await readMultipart(req);
  const fields: JsonObject = {};
  for (const [k, v] of Object.entries(mp.fields)) {
    if (k === 'image_url' || k === 'images') continue;
    if (Array.isArray(v)) throw new GatewayError('invalid_parameter', `${k} must be given once`, { param: k });
    fields[k] = v;
  }
  const images: string[] = [];
  let i = 0;
  for (const f of mp.files) {
    const name = f.field.replace(/\[\]$/, '');
    if (name === 'mask') throw new GatewayError('invalid_parameter', 'mask is not supported; describe the change in the prompt', { param: 'mask' });
    if (name !== 'image') throw new GatewayError('invalid_parameter', `Unexpected file field '${f.field}': upload images as image or image[]`, { param: f.field });
    images.push(uploadToDataUri(f, i++));
  }
  const urls = mp.fields.image_url ?? mp.fields.images;
  for (const u of urls === undefined ? [] : Array.isArray(urls) ? urls : [urls]) images.push(checkImageRef(u, 'image_url'));
  return { fields, images };
}

function targetOf(ch: Channel) {
  if (!ch.keys.apiKey) throw new GatewayError('no_channel', 'The upstream channel has no API key configured');
  return { baseUrl: ch.baseUrl, apiKey: ch.keys.apiKey };
}

async function run(deps: AppDeps, req: FastifyRequest, r: ResolvedModel, ir: ImageRequest, net: Pick<SafeNet, 'fetch'>) {
  const p = principalOf(req);
  if (p.quota !== null) await deps.meter.assertQuota(p.tokenId);
  const channels = deps.channels.forModel(r.entry);
  // connect-only: a call that may have reached the upstream is never sent again (it would produce and bill twice).
  const result = await withFailover(channels, deps.breakers, (ch) => generateImages(deps.upstream, targetOf(ch), ir, r.upstreamModel), {
    policy: 'connect-only',
    onNotEntitled: (ch) => deps.channels.markNotEntitled(ch.id, r.entry.id),
  });
  req.state.upstreamRequestId = result.upstreamRequestId;
  const produced = result.urls.length + result.b64.length;
  req.state.usage = { images: 0, requested: ir.n, produced };
  if (produced === 0) throw noOutput(ir, result);

  const data = await deliver(deps, req, ir, result, net);
  const amount = await deps.meter.chargeSync({
    requestId: req.id,
    tokenId: p.tokenId,
    model: r.publicName,
    billingModel: r.billingModel,
    usage: { kind: 'images', images: data.length },
    upstreamRequestId: result.upstreamRequestId,
  });
  req.state.usage = { images: data.length, requested: ir.n, produced };
  req.state.amount = amount;
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
  return new GatewayError('upstream_error', 'The upstream produced no image for this prompt; nothing was charged. Try again or rephrase the prompt', o);
}

/**
 * The items to return. For b64_json, URL results are downloaded (result hosts only): what downloads is
 * returned and charged; when nothing does, the request fails and nothing is charged — the client got no image.
 */
async function deliver(deps: AppDeps, req: FastifyRequest, ir: ImageRequest, result: ImageResult, net: Pick<SafeNet, 'fetch'>): Promise<ImageItem[]> {
  if (ir.responseFormat === 'url') return [...result.urls.map((url) => ({ url })), ...result.b64.map((b64_json) => ({ b64_json }))];
  const items: ImageItem[] = result.b64.map((b64_json) => ({ b64_json }));
  if (result.urls.length === 0) return items;
  const got = await downloadAsBase64(net, result.urls, resultDownloadPolicy(deps.config));
  items.push(...got.b64.map((b64_json) => ({ b64_json })));
  const first = got.failures[0];
  if (first) {
    req.log.warn({ produced: result.urls.length + result.b64.length, delivered: items.length, error_code: first.code, reason: first.message, upstream_request_id: result.upstreamRequestId ?? undefined }, 'image b64 conversion failed');
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
