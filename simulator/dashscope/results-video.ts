// Result files of simulated video tasks: `GET /dashscope-result/video/<name>.mp4?Expires=<unix s>&Signature=…`,
// like the OSS signed URLs the real API returns. Honours Range (206 / 416) and refuses expired URLs
// with OSS's 403 XML, so the gateway's content proxy can be exercised end to end.
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { SimContext } from '../context.ts';
import type { SimRouter } from '../router.ts';

export const RESULT_VIDEO_PREFIX = '/dashscope-result/video/';

// A real, playable 2-second 160x90 H.264 MP4 (4 KiB), generated once with ffmpeg:
//   ffmpeg -f lavfi -i testsrc=size=160x90:rate=24:duration=2 -c:v libx264 -profile:v baseline \
//     -pix_fmt yuv420p -crf 40 -movflags +faststart -an simulator/fixtures/sample.mp4
export const SIM_VIDEO_BYTES = readFileSync(fileURLToPath(new URL('../fixtures/sample.mp4', import.meta.url)));

/** A signed-looking result URL valid for ctx.opts.resultTtlMs from now. */
export function resultVideoUrl(ctx: SimContext, name: string, now = Date.now()): { url: string; expiresAt: number } {
  const expiresAt = now + ctx.opts.resultTtlMs;
  const exp = Math.floor(expiresAt / 1000);
  return {
    url: `${ctx.baseUrl}${RESULT_VIDEO_PREFIX}${name}.mp4?Expires=${exp}&OSSAccessKeyId=SIMKEYID&Signature=sim${exp.toString(36)}`,
    expiresAt,
  };
}

function ossError(res: ServerResponse, status: number, code: string, message: string): void {
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>SIM</RequestId></Error>`;
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(xml) });
  res.end(xml);
}

export function registerResultVideos(router: SimRouter, _ctx: SimContext): void {
  router.on('GET', `${RESULT_VIDEO_PREFIX}:file`, (req, res) => {
    if (!/\.mp4$/.test(req.params.file ?? ''))
      return ossError(res, 404, 'NoSuchKey', 'The specified key does not exist.');
    const exp = Number(req.query.get('Expires') ?? NaN);
    if (!Number.isFinite(exp) || !req.query.get('Signature'))
      return ossError(res, 403, 'AccessDenied', 'Signature missing.');
    // Expiry is checked in ms precision against the second the URL carries.
    if (exp * 1000 <= Date.now()) return ossError(res, 403, 'AccessDenied', 'Request has expired.');
    const bytes = SIM_VIDEO_BYTES;
    const range = req.headers.range;
    const common = { 'content-type': 'video/mp4', 'accept-ranges': 'bytes', etag: '"sim-video-1"' };
    if (typeof range === 'string') {
      const m = /^bytes=(\d*)-(\d*)$/.exec(range.trim());
      let start = m && m[1] !== '' ? Number(m[1]) : NaN;
      let end = m && m[2] !== '' ? Number(m[2]) : bytes.length - 1;
      if (m && m[1] === '' && m[2] !== '') {
        start = Math.max(0, bytes.length - Number(m[2]));
        end = bytes.length - 1;
      }
      if (!m || !Number.isFinite(start) || start >= bytes.length || end < start) {
        res.writeHead(416, { 'content-range': `bytes */${bytes.length}` });
        res.end();
        return;
      }
      end = Math.min(end, bytes.length - 1);
      res.writeHead(206, {
        ...common,
        'content-length': end - start + 1,
        'content-range': `bytes ${start}-${end}/${bytes.length}`,
      });
      res.end(bytes.subarray(start, end + 1));
      return;
    }
    res.writeHead(200, { ...common, 'content-length': bytes.length });
    res.end(bytes);
  });
}
