// The image calls the gateway sent upstream, as the simulator recorded them.
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
