// Reference media of POST /v1/videos given inline: a file part of a multipart body (`input_reference`, as the openai
// SDK sends an Uploadable) or a `data:` URL wherever a reference URL is taken. Each is checked (type, size, that its
// bytes are what it says) and put in the body as a placeholder URL, so the reference rules (video-references.ts)
// judge it exactly as a public URL; the placeholders are swapped for the stored copies' addresses afterwards.
import { GatewayError } from '../errors/gateway-error.ts';
import { isObject, type JsonObject } from '../json/json.ts';

/** A file part as the HTTP layer read it. */
export interface FilePart {
  field: string;
  contentType: string;
  data: Buffer;
}

/** A checked inline medium, waiting to be stored; `placeholder` is the URL standing for it in the body. */
export interface InlineMedium {
  placeholder: string;
  field: string;
  contentType: string;
  ext: string;
  data: Buffer;
}

const MB = 1024 * 1024;

interface UploadType {
  kind: 'image' | 'video';
  ext: string;
  maxBytes: number;
  /** Do the first bytes look like this type? */
  sniff: (b: Buffer) => boolean;
}

const at = (b: Buffer, offset: number, ascii: string) =>
  b.subarray(offset, offset + ascii.length).toString('latin1') === ascii;

/** The types the upstream's video models take as references (images: first frames, references; videos: clips, edits). */
export const UPLOAD_TYPES: Readonly<Record<string, UploadType>> = {
  'image/jpeg': { kind: 'image', ext: 'jpg', maxBytes: 10 * MB, sniff: (b) => b[0] === 0xff && b[1] === 0xd8 },
  'image/png': { kind: 'image', ext: 'png', maxBytes: 10 * MB, sniff: (b) => at(b, 1, 'PNG') },
  'image/webp': { kind: 'image', ext: 'webp', maxBytes: 10 * MB, sniff: (b) => at(b, 0, 'RIFF') && at(b, 8, 'WEBP') },
  'image/bmp': { kind: 'image', ext: 'bmp', maxBytes: 10 * MB, sniff: (b) => at(b, 0, 'BM') },
  'video/mp4': { kind: 'video', ext: 'mp4', maxBytes: 20 * MB, sniff: (b) => isoMedia(b) },
  'video/quicktime': { kind: 'video', ext: 'mov', maxBytes: 20 * MB, sniff: (b) => isoMedia(b) },
};

/** An ISO base media file (mp4, mov) opens with a box: its 4-byte size, then its type. */
function isoMedia(b: Buffer): boolean {
  return ['ftyp', 'moov', 'mdat', 'free', 'wide', 'skip'].some((box) => at(b, 4, box));
}

const TYPE_LIST = Object.keys(UPLOAD_TYPES).join(', ');
const bad = (message: string, param: string) => new GatewayError('invalid_reference', message, { param });

/** Check one inline medium's declared type, size and first bytes. */
function checkMedium(contentType: string, data: Buffer, field: string, n: number): InlineMedium {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const t = UPLOAD_TYPES[type];
  if (!t) throw bad(`${field}: type ${type || '(none)'} is not accepted; send one of ${TYPE_LIST}`, field);
  if (data.length === 0) throw bad(`${field} is empty`, field);
  if (data.length > t.maxBytes)
    throw bad(`${field} is ${data.length} bytes; a ${t.kind} reference may be at most ${t.maxBytes / MB} MB`, field);
  if (!t.sniff(data)) throw bad(`${field} does not hold ${type} data`, field);
  return { placeholder: `https://upload.invalid/${n}.${t.ext}`, field, contentType: type, ext: t.ext, data };
}

const DATA_URL = /^data:([a-z0-9.+-]+\/[a-z0-9.+-]+)((?:;[a-z0-9-]+=[^;,]*)*);base64,(.*)$/is;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function fromDataUrl(url: string, field: string, n: number): InlineMedium {
  const m = DATA_URL.exec(url);
  if (!m) throw bad(`${field}: a data: URL must be data:<type>;base64,<data>`, field);
  const b64 = m[3]!.replace(/\s+/g, '');
  if (b64.length % 4 !== 0 || !BASE64.test(b64)) throw bad(`${field}: the data: URL's base64 is malformed`, field);
  return checkMedium(m[1]!, Buffer.from(b64, 'base64'), field, n);
}

/** Fields whose values may hold reference URLs, and so data: URLs. */
const REFERENCE_FIELDS = ['input_reference', 'input_image', 'references'] as const;

/**
 * The body with every data: URL in a reference field and every file part replaced by a placeholder URL, and the
 * media they stand for. File parts are taken under `input_reference` (also `input_reference[]`) and `input_image`.
 */
export function inlineMedia(body: JsonObject, files: readonly FilePart[]): { body: JsonObject; media: InlineMedium[] } {
  const media: InlineMedium[] = [];
  const walk = (v: unknown, field: string): unknown => {
    if (typeof v === 'string' && /^data:/i.test(v)) {
      const m = fromDataUrl(v, field, media.length);
      media.push(m);
      return m.placeholder;
    }
    if (Array.isArray(v)) return v.map((x, i) => walk(x, `${field}[${i}]`));
    if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, `${field}.${k}`)]));
    return v;
  };
  const out: JsonObject = { ...body };
  for (const f of REFERENCE_FIELDS) if (out[f] !== undefined) out[f] = walk(out[f], f);
  for (const file of files) {
    const field = file.field === 'input_reference[]' ? 'input_reference' : file.field;
    if (field !== 'input_reference' && field !== 'input_image')
      throw bad(`${file.field}: files are taken only as input_reference (or input_image)`, file.field);
    const m = checkMedium(file.contentType, file.data, field, media.length);
    media.push(m);
    const prev = out[field];
    out[field] =
      prev === undefined || prev === null ? m.placeholder : [...(Array.isArray(prev) ? prev : [prev]), m.placeholder];
  }
  return { body: out, media };
}
