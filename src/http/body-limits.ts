// Request body limits per endpoint class, applied to every route as it is registered (onRoute), so a
// small control call cannot be used to push megabytes and uploads get the room they need:
//   control  — family A selection calls, admin API, upstream callbacks: ≤ 256 KiB
//   text     — embeddings (strings only): ≤ 2 MiB
//   media    — chat/responses/messages (and its token count), image generation, family A task creation (inline base64 images
//              allowed): TOLLWAY_BODY_LIMIT
//   upload   — image edits and video creation (multipart uploads): TOLLWAY_UPLOAD_BODY_LIMIT; the whole
//              multipart body is bounded by it too (readMultipart), not only each file.
// The smaller classes never exceed TOLLWAY_BODY_LIMIT (an operator lowering it lowers them all).
import type { RouteOptions } from 'fastify';
import type { Config } from '../config/config.ts';

export type BodyClass = 'control' | 'text' | 'media' | 'upload';

export const CONTROL_LIMIT = 256 * 1024;
export const TEXT_LIMIT = 2 * 1024 * 1024;

const UPLOAD = [/^\/v1\/images\/edits$/, /^\/v1\/videos$/];
const TEXT = [/^\/v1\/embeddings$/];
const MEDIA = [/^\/v1\/chat\/completions$/, /^\/v1\/responses$/, /^\/v1\/messages$/, /^\/v1\/messages\/count_tokens$/, /^\/v1\/images\/generations$/, /^\/vidx\/v1\/videos\/(text2video|omni-video|multi-elements)$/];

export function bodyClassOf(url: string): BodyClass {
  const path = url.replace(/\/+$/, '');
  if (UPLOAD.some((r) => r.test(path))) return 'upload';
  if (TEXT.some((r) => r.test(path))) return 'text';
  if (MEDIA.some((r) => r.test(path))) return 'media';
  return 'control';
}

export function bodyLimitFor(url: string, config: Pick<Config, 'bodyLimit' | 'uploadBodyLimit'>): number {
  switch (bodyClassOf(url)) {
    case 'upload':
      return config.uploadBodyLimit;
    case 'media':
      return config.bodyLimit;
    case 'text':
      return Math.min(TEXT_LIMIT, config.bodyLimit);
    default:
      return Math.min(CONTROL_LIMIT, config.bodyLimit);
  }
}

/** onRoute hook: give each route with a body its class limit (a route's own explicit limit wins). */
export function applyBodyLimits(config: Pick<Config, 'bodyLimit' | 'uploadBodyLimit'>): (r: RouteOptions) => void {
  return (r) => {
    if (r.bodyLimit !== undefined) return;
    r.bodyLimit = bodyLimitFor(r.url, config);
  };
}
