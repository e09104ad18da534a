// A finished video streamed from its result host to the client (GET /v1/videos/{id}/content for its owner,
// GET /admin/tasks/{id}/content for the operator's console): never buffered, one well-formed byte Range forwarded.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayDeps } from '../core/deps.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { resultDownloadPolicy } from '../net/index.ts';

/** Videos can be large; the proxy streams them, so this cap only guards against a runaway upstream. */
const MAX_VIDEO_BYTES = 4 * 1024 * 1024 * 1024;

// One byte range, after the unit (RFC 9110 §14.1.2): `first-last`, `first-` or a suffix `-length`.
const ONE_RANGE = /^(?:(\d{1,16})-(\d{1,16})?|-(\d{1,16}))$/;

/**
 * The Range the result host is asked for, or null to answer the whole file (200), as RFC 9110 §14.2 lets a server
 * ignore a Range: the unit `bytes` in any case (sent on as `bytes`); one range, well formed, its last position not
 * before its first. Another unit, a malformed or backwards range, and a list of several ranges (which would need a
 * multipart answer) are ignored. Whether a range fits the file is the result host's to say (206 or 416).
 */
export function forwardedRange(v: string | string[] | undefined): string | null {
  if (typeof v !== 'string') return null;
  const eq = v.indexOf('=');
  if (eq < 0 || v.slice(0, eq).toLowerCase() !== 'bytes') return null;
  const spec = v.slice(eq + 1).trim();
  const m = ONE_RANGE.exec(spec);
  if (!m) return null;
  if (m[1] !== undefined && m[2] !== undefined && Number(m[2]) < Number(m[1])) return null;
  return `bytes=${spec}`;
}

/** Where the finished video is, and the error to give when its host says it is gone. */
export interface VideoSource {
  url: string;
  expired: () => GatewayError;
}

/**
 * The result host's type when it names a video (or bare bytes); anything else — HTML, script, none — is sent as mp4.
 */
export function videoContentType(v: string | string[] | undefined): string {
  const t = typeof v === 'string' ? v.trim().toLowerCase() : '';
  return /^(?:video\/[a-z0-9.+-]+|application\/octet-stream)(?:\s*;.*)?$/.test(t) ? t : 'video/mp4';
}

export async function sendVideoContent(
  deps: Pick<GatewayDeps, 'config' | 'net'>,
  req: FastifyRequest,
  reply: FastifyReply,
  src: VideoSource,
  name: string,
): Promise<FastifyReply> {
  const headers: Record<string, string> = {};
  const range = forwardedRange(req.headers.range);
  if (range !== null) headers.range = range;
  const up = await deps.net.stream(src.url, {
    ...resultDownloadPolicy(deps.config),
    headers,
    maxBytes: MAX_VIDEO_BYTES,
    timeoutMs: 60_000,
  });
  if (up.statusCode === 403 || up.statusCode === 404 || up.statusCode === 410) {
    up.body.destroy();
    throw src.expired();
  }
  if (up.statusCode !== 200 && up.statusCode !== 206 && up.statusCode !== 416) {
    up.body.destroy();
    throw new GatewayError('download_failed', `The result host answered HTTP ${up.statusCode}`);
  }
  reply.code(up.statusCode);
  for (const h of ['content-length', 'content-range', 'accept-ranges', 'etag', 'last-modified']) {
    const v = up.headers[h];
    if (typeof v === 'string') reply.header(h, v);
  }
  reply.header('content-type', videoContentType(up.headers['content-type']));
  // Served on the gateway's (and the console's) origin: whatever the result host sends is never run as a page.
  reply.header('x-content-type-options', 'nosniff');
  reply.header('content-security-policy', "default-src 'none'; sandbox");
  reply.header('content-disposition', `inline; filename="${name}.mp4"`);
  // Streamed through, never buffered: Fastify pipes the Readable and destroys it if the client goes away.
  return reply.send(up.body);
}
