// Shared by the image route tests: ledger and request-log lookups, and the upstream bodies sent.
import type { Harness } from '../../helpers/harness.ts';

export const IMAGE_PATH = '/api/v1/services/aigc/multimodal-generation/generation';

export async function ledgerFor(h: Harness, requestId: string) {
  await h.gw.deps.meter.flush();
  return h.store.db.selectFrom('ledger').selectAll().where('request_id', '=', requestId).execute();
}

export async function ledgerForToken(h: Harness, tokenId: string) {
  await h.gw.deps.meter.flush();
  return h.store.db.selectFrom('ledger').selectAll().where('token_id', '=', tokenId).execute();
}

export async function requestLogFor(h: Harness, requestId: string) {
  await h.gw.deps.requestLog.flush();
  return h.store.db.selectFrom('request_log').selectAll().where('request_id', '=', requestId).executeTakeFirst();
}

export interface SentImageBody {
  model: string;
  input: { messages: Array<{ role: string; content: Array<{ image?: string; text?: string }> }> };
  parameters: { size?: string; n: number; watermark?: boolean };
}

/** Upstream image calls made since `mark` (a count from `imageCalls(h).length`). */
export function imageCalls(h: Harness): SentImageBody[] {
  return h.sim.requestsTo(IMAGE_PATH).map((r) => r.body as SentImageBody);
}
