// The image calls the gateway sent upstream, as the simulator recorded them.
import type { BErr } from './error-shapes.ts';
import type { Harness } from './harness.ts';

export const IMAGE_PATH = '/api/v1/services/aigc/multimodal-generation/generation';

export interface SentImageBody {
  model: string;
  input: { messages: Array<{ role: string; content: Array<{ image?: string; text?: string }> }> };
  parameters: { size?: string; n: number; watermark?: boolean };
}

/** Every upstream image call so far (take `.length` before a request and `.slice(before)` after it). */
export function imageCalls(h: Harness): SentImageBody[] {
  return h.sim.requestsTo(IMAGE_PATH).map((r) => r.body as SentImageBody);
}

/** qwx-image-2.0 and qwx-image-edit-plus: micro-units per image. */
export const IMAGE_PRICE = 200_000;

/** An error answer's status and its family B error fields. */
export async function errorOf(
  res: Response,
): Promise<{ status: number; code: string; message: string; param?: string }> {
  const b = (await res.json()) as BErr;
  return { status: res.status, ...b.error };
}

/** A multipart form of fields and files (each a field name, its bytes and a file name). */
export function form(fields: Record<string, string>, files: Array<[string, Buffer, string]> = []): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  for (const [k, data, name] of files) fd.append(k, new Blob([data], { type: 'application/octet-stream' }), name);
  return fd;
}
