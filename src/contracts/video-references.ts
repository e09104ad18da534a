// Reference media of POST /v1/videos (input_reference, input_image, references.video): public http(s) URLs,
// checked per model and mapped to the upstream roles of that model (first_frame, last_frame, first_clip,
// reference_image, reference_video, video).
import type { VideoRules } from '../catalogue/types.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { literalHostReason } from '../net/address-policy.ts';
import { isObject, type JsonObject } from '../json/json.ts';

/** A reference of a video request: its role, and where it is. */
export type MediaType = 'first_frame' | 'last_frame' | 'first_clip' | 'reference_image' | 'reference_video' | 'video';
export interface Media {
  type: MediaType;
  url: string;
}

const badRef = (message: string, param: string) => new GatewayError('invalid_reference', message, { param });

interface Ref {
  kind: 'image' | 'video';
  url: string;
  field: string;
}

const VIDEO_EXT = /\.(mp4|mov)$/i;

function httpUrl(raw: string, field: string): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw badRef(`${field} must be a public http(s) URL`, field);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:')
    throw badRef(`${field} must be a public http(s) URL (uploads and data: URLs are not supported)`, field);
  const why = literalHostReason(u);
  if (why) throw badRef(`${field} must be a public http(s) URL (not a ${why})`, field);
  return u;
}

function videoRef(raw: unknown, field: string): Ref {
  const url = typeof raw === 'string' ? raw : isObject(raw) ? (raw.video_url ?? raw.url) : undefined;
  if (typeof url !== 'string' || url === '') throw badRef(`${field} must be a video URL`, field);
  const u = httpUrl(url, field);
  if (!VIDEO_EXT.test(u.pathname)) throw badRef(`${field} must be a video URL ending in .mp4 or .mov`, field);
  return { kind: 'video', url, field };
}

/** A string (image or video by extension), `{image_url}` or `{video_url}`. */
function anyRef(raw: unknown, field: string): Ref {
  if (typeof raw === 'string') {
    const u = httpUrl(raw, field);
    return { kind: VIDEO_EXT.test(u.pathname) ? 'video' : 'image', url: raw, field };
  }
  if (isObject(raw)) {
    if (raw.video_url !== undefined) return videoRef(raw, field);
    const img = raw.image_url;
    const url = typeof img === 'string' ? img : isObject(img) && typeof img.url === 'string' ? img.url : undefined;
    if (url === undefined || url === '')
      throw badRef(`${field} must be an image URL, {image_url} or a video URL`, field);
    httpUrl(url, field);
    return { kind: 'image', url, field };
  }
  throw badRef(`${field} must be an image URL, {image_url} or a video URL`, field);
}

function listOf(raw: unknown, field: string): Ref[] {
  if (raw === undefined || raw === null) return [];
  if (Array.isArray(raw)) return raw.map((x, i) => anyRef(x, `${field}[${i}]`));
  return [anyRef(raw, field)];
}

function collect(body: JsonObject): { input: Ref[]; inputImage: Ref[]; videos: Ref[] } {
  const input = listOf(body.input_reference, 'input_reference');
  const inputImage = listOf(body.input_image, 'input_image');
  let videos: Ref[] = [];
  const refs = body.references;
  if (refs !== undefined && refs !== null) {
    if (!isObject(refs))
      throw badRef('references must be an object holding a list of video URLs under "video"', 'references');
    for (const k of Object.keys(refs))
      if (k !== 'video') throw badRef(`references.${k} is not supported; use references.video`, `references.${k}`);
    const v = refs.video;
    if (v !== undefined && v !== null) {
      const arr = Array.isArray(v) ? v : [v];
      videos = arr.map((x, i) => videoRef(x, `references.video[${i}]`));
    }
  }
  return { input, inputImage, videos };
}

function onlyImages(refs: Ref[], model: string): void {
  const v = refs.find((r) => r.kind !== 'image');
  if (v) throw badRef(`${v.field}: ${model} takes image references only`, v.field);
}

function none(refs: Ref[], field: string, model: string): void {
  if (refs.length > 0) throw badRef(`${field} is not accepted by ${model}`, field);
}

/** The contract's reference mapping table, model by model. */
export function mapReferences(body: JsonObject, rules: VideoRules, model: string): Media[] {
  const { input, inputImage, videos } = collect(body);
  const m =
    (type: MediaType) =>
    (r: Ref): Media => ({ type, url: r.url });
  switch (rules.refs) {
    case 'none':
      none(input, 'input_reference', model);
      none(inputImage, 'input_image', model);
      none(videos, 'references.video', model);
      return [];
    case 'first-frame': {
      none(videos, 'references.video', model);
      if (input.length > 0 && inputImage.length > 0)
        throw badRef('Send either input_reference or input_image, not both', 'input_image');
      const refs = input.length > 0 ? input : inputImage;
      const field = input.length > 0 ? 'input_reference' : 'input_image';
      if (refs.length === 0)
        throw badRef(`${model} needs one first-frame image in input_reference (or input_image)`, 'input_reference');
      if (refs.length > 1) throw badRef(`${model} takes exactly one first-frame image`, field);
      onlyImages(refs, model);
      return refs.map(m('first_frame'));
    }
    case 'reference-images': {
      none(videos, 'references.video', model);
      none(inputImage, 'input_image', model);
      const max = rules.maxReferenceImages ?? 9;
      if (input.length === 0)
        throw badRef(`${model} needs 1 to ${max} reference images in input_reference`, 'input_reference');
      if (input.length > max)
        throw badRef(
          `${model} takes at most ${max} reference images in input_reference, got ${input.length}`,
          'input_reference',
        );
      onlyImages(input, model);
      return input.map(m('reference_image'));
    }
    case 'wan-i2v': {
      none(inputImage, 'input_image', model);
      none(videos, 'references.video', model);
      if (input.length === 0)
        throw badRef(`${model} needs an image or video URL in input_reference`, 'input_reference');
      const vids = input.filter((r) => r.kind === 'video');
      const imgs = input.filter((r) => r.kind === 'image');
      if (vids.length > 1) throw badRef(`${model} takes at most one video (the first clip)`, vids[1]!.field);
      // First video → first_clip; first image → first_frame; later images → last_frame. With a first
      // clip the clip is the opening, so an image can only be the closing frame (last_frame).
      const out: Media[] = vids.map(m('first_clip'));
      for (const [i, r] of imgs.entries())
        out.push({ type: i === 0 && vids.length === 0 ? 'first_frame' : 'last_frame', url: r.url });
      const lastFrames = out.filter((x) => x.type === 'last_frame').length;
      if (lastFrames > 1)
        throw badRef(`${model} takes a first frame (or first clip) and at most one last frame`, 'input_reference');
      return out;
    }
    case 'wan-r2v': {
      none(inputImage, 'input_image', model);
      onlyImages(input, model);
      const out = [...videos.map(m('reference_video')), ...input.map(m('reference_image'))];
      if (out.length === 0)
        throw badRef(`${model} needs references.video[] and/or input_reference images`, 'references.video');
      if (out.length > 5) throw badRef(`${model} takes at most 5 references in all`, 'references.video');
      return out;
    }
    case 'hhx-edit':
    case 'wan-edit': {
      none(inputImage, 'input_image', model);
      const srcVideos = [...videos, ...input.filter((r) => r.kind === 'video')];
      const imgs = input.filter((r) => r.kind === 'image');
      if (srcVideos.length === 0)
        throw badRef(`${model} needs the source video in references.video[]`, 'references.video');
      if (srcVideos.length > 1) throw badRef(`${model} edits exactly one source video`, srcVideos[1]!.field);
      const maxImgs = rules.refs === 'hhx-edit' ? 5 : 4;
      if (imgs.length > maxImgs) throw badRef(`${model} takes at most ${maxImgs} reference images`, 'input_reference');
      return [...srcVideos.map(m('video')), ...imgs.map(m('reference_image'))];
    }
  }
}
