// How a text call's answer reaches the client: a whole JSON body, or server-sent events piped with backpressure
// and client-disconnect handling (sse.ts). The call itself — model, upstream, charge — is core/text.ts.
import type { CallOptions, CompleteResult, ErrorFrame, TextCapability, TextRequest } from '../../../adapters/types.ts';
import type { ResolvedModel } from '../../../catalogue/types.ts';
import { chargeStream, completeText, startTextStream, type TextDeps } from '../../../core/text.ts';
import { sendBody, type Exchange } from '../../exchange.ts';
import { ClientWatch, sendSse, type StreamOutcome } from '../../sse.ts';

/** Non-streaming: the core's answer written whole. */
export function sendComplete(
  deps: TextDeps,
  ex: Exchange,
  r: ResolvedModel,
  run: (o: CallOptions) => Promise<CompleteResult>,
  extra?: Omit<CallOptions, 'target'>,
): Promise<void> {
  return completeText(deps, ex, r, run, (body) => sendBody(ex, 200, body), extra);
}

/** Streaming: the client is watched from before the upstream call, so its leaving aborts even the wait for headers. */
/** What a stream needs beyond the call: how long a client may take no byte before it is cut. */
export type StreamDeps = TextDeps & { readonly config: { readonly clientStallMs: number } };

export async function sendStream(
  deps: StreamDeps,
  ex: Exchange,
  r: ResolvedModel,
  cap: TextCapability,
  treq: TextRequest,
  errorFrame: ErrorFrame,
  headers?: Record<string, string>,
): Promise<void> {
  const watch = new ClientWatch(ex.res, deps.config.clientStallMs);
  const s = await startTextStream(
    deps,
    ex,
    r,
    cap,
    treq,
    headers ? { signal: watch.signal, headers } : { signal: watch.signal },
  ).catch((e: unknown) => {
    watch.dispose();
    throw e;
  });
  let committed: Promise<void> | undefined;
  await sendSse(ex, {
    stream: s,
    watch,
    errorFrame,
    onEnd: (outcome: StreamOutcome) => {
      const c = chargeStream(deps, ex, r, s, outcome === 'client-abort');
      committed = c.committed;
      if (outcome !== 'complete') ex.log.info({ outcome, metered_by: c.by }, 'stream ended early');
      // The response ends once the charge is settled, or queued with its queue not behind (the crash window).
      return committed;
    },
  });
  // The request's record waits for a reserved call's settlement, so it carries the amount the ledger got.
  if (committed) await committed;
}

/** Chat-style error event: `data: {"error":{…}}` (what OpenAI-style SDKs raise on). */
export const chatErrorFrame: ErrorFrame = (_e, body) => `data: ${JSON.stringify({ error: body })}\n\n`;
