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

export const MULTIPART_LIMITS = { fileSize: 20 * 1024 * 1024, files: 16, fields: 200, fieldSize: 1024 * 1024, parts: 300 };

export async function registerMultipart(scope: FastifyInstance): Promise<void> {
  await scope.register(multipart, { limits: MULTIPART_LIMITS, throwFileSizeLimit: true });
}

export function isMultipart(req: FastifyRequest): boolean {
  return String(req.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/form-data');
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
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        const data = await part.toBuffer();
        total += data.length;
        if (total > limit) throw tooLarge();
        files.push({ field: part.fieldname, filename: part.filename, mimetype: part.mimetype, data });
      } else {
        const value = typeof part.value === 'string' ? part.value : String(part.value);
        // PostgreSQL refuses a NUL in text; no field here can hold one.
        if (value.includes('\0') || part.fieldname.includes('\0')) throw new GatewayError('invalid_parameter', 'Form fields may not contain the NUL character', { param: part.fieldname.replaceAll('\0', '') });
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
    if (/LIMIT|TOO_LARGE/.test(code)) throw new GatewayError('payload_too_large', 'Multipart body exceeds the upload limits');
    throw new GatewayError('invalid_request', 'Malformed multipart/form-data body');
  }
  return { fields, files };
}
