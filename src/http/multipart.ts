// multipart/form-data for the endpoints that accept it (image edits, video creation), as the
// official openai SDK sends it. Fields arrive as strings; callers convert numbers explicitly.
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors/gateway-error.ts';

export interface UploadedFile {
  field: string;
  filename: string;
  mimetype: string;
  data: Buffer;
}

export interface MultipartBody {
  fields: Record<string, string | string[]>;
  files: UploadedFile[];
}

export const MULTIPART_LIMITS = {
  fileSize: 20 * 1024 * 1024,
  files: 16,
  fields: 200,
  fieldSize: 1024 * 1024,
  parts: 300,
};

export async function registerMultipart(scope: FastifyInstance): Promise<void> {
  await scope.register(multipart, { limits: MULTIPART_LIMITS, throwFileSizeLimit: true });
}

export function isMultipart(req: FastifyRequest): boolean {
  return String(req.headers['content-type'] ?? '')
    .toLowerCase()
    .startsWith('multipart/form-data');
}

/**
 * Watches a multipart body's bytes for its closing delimiter (`CRLF--boundary--`; at the very start, `--boundary--`).
 * @fastify/multipart ends its parts without an error when the body stops before that delimiter, and the field that
 * was being read is dropped: a request cut short would be served without its last field (a video's resolution, an
 * image count), so the caller refuses a body whose delimiter never came. The boundary cannot occur inside a part (it is
 * chosen so), so finding the delimiter anywhere in the stream means the form was closed. Only the chunk seams are
 * copied. Call in the tick the request is piped into the parser, so the listener sees every chunk.
 */
function closingDelimiterWatch(raw: FastifyRequest['raw'], contentType: string): () => boolean {
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  // Without a boundary the parser itself refuses the body.
  if (!m) return () => true;
  const closing = Buffer.from(`\r\n--${m[1] ?? m[2]}--`, 'latin1');
  let seen = false;
  // As if a line break came before the body, so a form closed at its first byte is found too.
  let tail = Buffer.from('\r\n', 'latin1');
  const onData = (chunk: Buffer) => {
    if (seen) return;
    const seam = Buffer.concat([tail, chunk.subarray(0, closing.length - 1)]);
    if (seam.includes(closing) || chunk.includes(closing)) {
      seen = true;
      raw.off('data', onData);
      return;
    }
    const joined = chunk.length >= closing.length - 1 ? chunk : seam;
    tail = Buffer.from(joined.subarray(Math.max(0, joined.length - (closing.length - 1))));
  };
  raw.on('data', onData);
  return () => seen;
}

/** Read all parts into memory (bounded by MULTIPART_LIMITS). Repeated fields (`image[]`) become arrays. */
export async function readMultipart(req: FastifyRequest): Promise<MultipartBody> {
  const fields: Record<string, string | string[]> = {};
  const files: UploadedFile[] = [];
  // The route's body limit bounds the whole upload, not only each file (busboy limits are per part).
  const limit = req.routeOptions.bodyLimit ?? Number.POSITIVE_INFINITY;
  const tooLarge = () => new GatewayError('payload_too_large', 'Multipart body exceeds the upload limits');
  if (Number(req.headers['content-length'] ?? 0) > limit) throw tooLarge();
  let total = 0;
  let closed: () => boolean = () => true;
  try {
    const parts = req.parts();
    // The first step pipes the request into the parser, synchronously: watched from the same tick, no chunk is missed.
    const first = parts.next();
    closed = closingDelimiterWatch(req.raw, String(req.headers['content-type'] ?? ''));
    for (let r = await first; !r.done; r = await parts.next()) {
      const part = r.value;
      if (part.type === 'file') {
        const data = await part.toBuffer();
        total += data.length;
        if (total > limit) throw tooLarge();
        files.push({ field: part.fieldname, filename: part.filename, mimetype: part.mimetype, data });
      } else {
        const value = typeof part.value === 'string' ? part.value : String(part.value);
        // PostgreSQL refuses a NUL in text; no field here can hold one.
        if (value.includes('\0') || part.fieldname.includes('\0'))
          throw new GatewayError('invalid_parameter', 'Form fields may not contain the NUL character', {
            param: part.fieldname.replaceAll('\0', ''),
          });
        total += value.length;
        if (total > limit) throw tooLarge();
        const key = part.fieldname.endsWith('[]') ? part.fieldname.slice(0, -2) : part.fieldname;
        const prev = fields[key];
        if (prev === undefined) fields[key] = part.fieldname.endsWith('[]') ? [value] : value;
        else fields[key] = Array.isArray(prev) ? [...prev, value] : [prev, value];
      }
    }
  } catch (e) {
    if (e instanceof GatewayError) throw e;
    const code = (e as { code?: string }).code ?? '';
    if (/LIMIT|TOO_LARGE/.test(code))
      throw new GatewayError('payload_too_large', 'Multipart body exceeds the upload limits');
    throw new GatewayError('invalid_request', 'Malformed multipart/form-data body');
  }
  if (!closed())
    throw new GatewayError(
      'invalid_request',
      'Malformed multipart/form-data body: it ends before its closing boundary',
    );
  return { fields, files };
}
