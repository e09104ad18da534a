// Result files of simulated video tasks: `GET /dashscope-result/video/<name>.mp4?Expires=<unix s>&Signature=…`,
// like the OSS signed URLs the real API returns. Honours Range (206 / 416) and refuses expired URLs
// with OSS's 403 XML, so the gateway's content proxy can be exercised end to end.
import type { ServerResponse } from 'node:http';
import type { SimContext } from '../context.ts';
import type { SimRouter } from '../router.ts';

export const RESULT_VIDEO_PREFIX = '/dashscope-result/video/';

function box(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length, 0);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, body]);
}

function u32(...v: number[]): Buffer {
  const b = Buffer.alloc(4 * v.length);
  v.forEach((x, i) => b.writeUInt32BE(x >>> 0, i * 4));
  return b;
}

/** A small, structurally valid ISO-BMFF file (ftyp, moov/mvhd, mdat) of about 16 KiB. */
function buildMp4(durationSeconds: number): Buffer {
  const ftyp = box('ftyp', Buffer.from('isom', 'latin1'), u32(0x200), Buffer.from('isomiso2avc1mp41', 'latin1'));
  const timescale = 1000;
  // mvhd v0: version/flags, creation, modification, timescale, duration, rate 1.0, volume 1.0 + reserved, matrix, pre_defined, next_track_id
  const mvhd = box(
    'mvhd',
    u32(0, 0, 0, timescale, Math.round(durationSeconds * timescale), 0x00010000),
    Buffer.from([0x01, 0x00, 0, 0]),
    u32(0, 0),
    u32(0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000),
    u32(0, 0, 0, 0, 0, 0),
    u32(2),
  );
  const moov = box('moov', mvhd);
  const payload = Buffer.alloc(16 * 1024);
  for (let i = 0; i < payload.length; i++) payload[i] = (i * 31 + 7) & 0xff;
  return Buffer.concat([ftyp, moov, box('mdat', payload)]);
}

export const SIM_VIDEO_BYTES = buildMp4(5);

/** A signed-looking result URL valid for ctx.opts.resultTtlMs from now. */
export function resultVideoUrl(ctx: SimContext, name: string, now = Date.now()): { url: string; expiresAt: number } {
  const expiresAt = now + ctx.opts.resultTtlMs;
  const exp = Math.floor(expiresAt / 1000);
  return { url: `${ctx.baseUrl}${RESULT_VIDEO_PREFIX}${name}.mp4?Expires=${exp}&OSSAccessKeyId=SIMKEYID&Signature=sim${exp.toString(36)}`, expiresAt };
}

function ossError(res: ServerResponse, status: number, code: string, message: string): void {
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>SIM</RequestId></Error>`;
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(xml) });
  res.end(xml);
}

export function registerResultVideos(router: SimRouter, _ctx: SimContext): void {
  router.on('GET', `${RESULT_VIDEO_PREFIX}:file`, (req, res) => {
    if (!/\.mp4$/.test(req.params.file ?? '')) return ossError(res, 404, 'NoSuchKey', 'The specified key does not exist.');
    const exp = Number(req.query.get('Expires') ?? NaN);
    if (!Number.isFinite(exp) || !req.query.get('Signature')) return ossError(res, 403, 'AccessDenied', 'Signature missing.');
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
      res.writeHead(206, { ...common, 'content-length': end - start + 1, 'content-range': `bytes ${start}-${end}/${bytes.length}` });
      res.end(bytes.subarray(start, end + 1));
      return;
    }
    res.writeHead(200, { ...common, 'content-length': bytes.length });
    res.end(bytes);
  });
}
