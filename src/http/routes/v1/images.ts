// POST /v1/images/generations and /v1/images/edits (JSON, and multipart for edits as the openai SDK sends it):
// the HTTP input read into fields and images, then core/images.ts.
import type { FastifyRequest } from 'fastify';
import { requireBody } from '../../../contracts/fields.ts';
import type { JsonObject } from '../../../json/json.ts';
import { checkImageRef, parseJsonImages, uploadToDataUri } from '../../../contracts/images.ts';
import * as images from '../../../core/images.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import { fastifyRoute } from '../../front/route-row.ts';
import { isMultipart, readMultipart } from '../../multipart.ts';

export const generate = fastifyRoute(({ deps }) => async (req) => {
  if (isMultipart(req))
    throw new GatewayError(
      'unsupported_content_type',
      'Image generation takes a JSON body (Content-Type: application/json)',
    );
  return images.generate(deps, deps.net, req, requireBody(req.body));
});

export const edit = fastifyRoute(({ deps }) => async (req) => {
  const { fields, images: refs } = isMultipart(req) ? await readEditMultipart(req) : readEditJson(req.body);
  return images.edit(deps, deps.net, req, fields, refs);
});

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
    if (name === 'mask')
      throw new GatewayError('invalid_parameter', 'mask is not supported; describe the change in the prompt', {
        param: 'mask',
      });
    if (name !== 'image')
      throw new GatewayError(
        'invalid_parameter',
        `Unexpected file field '${f.field}': upload images as image or image[]`,
        { param: f.field },
      );
    images.push(uploadToDataUri(f, i++));
  }
  const urls = mp.fields.image_url ?? mp.fields.images;
  for (const u of urls === undefined ? [] : Array.isArray(urls) ? urls : [urls])
    images.push(checkImageRef(u, 'image_url'));
  return { fields, images };
}
