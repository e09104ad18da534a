// Charging rules for calls answered at once: a text call's one ledger entry (settled from its reservation, or queued
// for the group commit) and the images delivered. What such a call is estimated and reserved at is
// text-estimate.ts; what a video task holds and is charged is video-usage.ts (the task engine applies it,
// tasks/settle.ts).
import type { TokenUsage } from '../adapters/types.ts';
import type { ResolvedModel } from '../catalogue/types.ts';
import type { Meter, SyncChargeInput } from '../metering/types.ts';
import { principalOf, type CallContext } from './call.ts';

function usageJson(u: TokenUsage, estimated: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { input_tokens: u.inputTokens, output_tokens: u.outputTokens };
  if (u.cachedTokens) out.cached_tokens = u.cachedTokens;
  if (u.cacheCreationTokens) out.cache_creation_tokens = u.cacheCreationTokens;
  if (estimated) out.estimated = true;
  return out;
}

/**
 * Exactly one ledger entry for a text call (idempotent by request id). Without a reservation it is queued for the
 * group commit and not awaited on the request path — unless the queue's writer is behind (Meter.chargesBehind): then
 * the promise resolves once the queue has caught up with it; a reserved call (a token with a quota) settles its
 * reservation and writes the charge in one transaction, and the promise resolves when both are committed.
 * Throws when the call cannot be priced, before anything is answered. `delivered`: the answer already reached the
 * client (a stream's end), so a settlement the store refuses for the moment cannot fail the call: the charge goes
 * to the group commit instead (retried until written; the same key); settle has released the reservation (else the
 * reaper does), so the quota does not count the call twice meanwhile.
 */
export function chargeTokens(
  meter: Meter,
  call: CallContext,
  model: ResolvedModel,
  usage: TokenUsage,
  estimated: boolean,
  upstreamRequestId: string | null,
  delivered = false,
): void | Promise<void> {
  const st = call.state;
  st.usage = usageJson(usage, estimated);
  st.tokens = usage.inputTokens + usage.outputTokens;
  if (upstreamRequestId) st.upstreamRequestId = upstreamRequestId;
  const input: SyncChargeInput = {
    requestId: call.id,
    tokenId: principalOf(call).tokenId,
    model: model.publicName,
    billingModel: model.billingModel,
    usage,
    upstreamRequestId,
  };
  if (!st.reserved) {
    st.amount = meter.chargeSyncDeferred(input);
    return meter.chargesBehind();
  }
  const settled = settle(meter, call, input);
  if (settled === undefined || !delivered) return settled;
  return settled.catch(async (e: unknown) => {
    call.log.error({ err: String(e) }, 'settling a delivered call failed; its charge is queued for the group commit');
    // settle released the hold (else the reaper will): the queued charge is not counted twice against the quota.
    call.state.amount = meter.chargeSyncDeferred({ ...input, billing: principalOf(call).billing });
  });
}

/**
 * Turn the call's reservation into its charge. `reserved` is cleared first, so nothing else on the call releases the
 * hold while it is being settled; if the settlement fails, the hold is released here (a no-op when the settlement
 * did commit and only its answer was lost) before the error goes on, so a failed call never keeps its quota held.
 * Undefined when it is settled at once (a call that reserved from an allowance: its charge is queued) and the
 * queue's writer keeps up (else the queue's back-pressure: Meter.chargesBehind).
 */
function settle(meter: Meter, call: CallContext, input: SyncChargeInput): Promise<void> | undefined {
  call.state.reserved = false;
  let r: Promise<number> | number;
  try {
    r = meter.settleReserved(input);
  } catch (e) {
    return releaseAndThrow(meter, call, e);
  }
  if (typeof r === 'number') {
    call.state.amount = r;
    return meter.chargesBehind();
  }
  return r.then(
    (n) => {
      call.state.amount = n;
    },
    (e: unknown) => releaseAndThrow(meter, call, e),
  );
}

async function releaseAndThrow(meter: Meter, call: CallContext, e: unknown): Promise<never> {
  await meter
    .releaseReserved(call.id)
    .catch((err: unknown) =>
      call.log.error({ err: String(err) }, 'reservation release failed; the reaper releases it'),
    );
  throw e;
}

/** One charge for the images delivered to the client (never for images produced but not delivered). */
export async function chargeImages(
  meter: Meter,
  call: CallContext,
  model: ResolvedModel,
  images: number,
  upstreamRequestId: string | null,
): Promise<number> {
  const input: SyncChargeInput = {
    requestId: call.id,
    tokenId: principalOf(call).tokenId,
    model: model.publicName,
    billingModel: model.billingModel,
    usage: { kind: 'images', images },
    upstreamRequestId,
  };
  if (call.state.reserved) await settle(meter, call, input);
  else call.state.amount = await meter.chargeSync(input);
  return call.state.amount;
}
