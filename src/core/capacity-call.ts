// A synchronous upstream call through its account x model's gate (capacity/): each attempt is admitted first —
// at once when there is room, else after a wait in the fair queue, or refused 429 by the gateway itself — and its
// ticket is held until the call's record (its answer or stream is over). A 429 from the upstream teaches the gate;
// a 'safe' call it refused waits its turn again and is tried once more instead of being answered at once.
import type { Capacity, GateModel } from '../capacity/capacity.ts';
import { Ticket, type Gate } from '../capacity/gate.ts';
import type { RefusedLimit } from '../capacity/limits.ts';
import { isGatewayError } from '../errors/gateway-error.ts';
import type { Usage } from '../metering/types.ts';
import type { Channel } from '../routing/channel-registry.ts';
import type { RetryPolicy } from '../routing/failover.ts';
import { principalOf, type CallContext } from './call.ts';

/** What a call needs to pass a gate: the gates, the model, its retry policy and its usage estimate. */
export interface Admission {
  readonly capacity: Capacity;
  readonly model: GateModel;
  readonly retry: RetryPolicy;
  readonly estimate: (call: CallContext) => Usage;
}

const tokensOf = (u: Usage): number => (u.kind === 'tokens' ? u.inputTokens + u.outputTokens : 0);

/** `attempt`, admitted by the gate of its channel's account x model when it has one. */
export function admitted<T>(a: Admission, call: CallContext, attempt: (ch: Channel) => Promise<T>): (ch: Channel) => Promise<T> {
  if (wrapped.has(attempt)) return attempt;
  const run = (ch: Channel): Promise<T> => {
    const gate = a.capacity.gateFor(ch, a.model);
    return gate === null ? attempt(ch) : through(a, gate, call, ch, attempt, a.retry === 'safe');
  };
  wrapped.add(run);
  return run;
}

/** Attempts already admitted through their gate (a retry does not wrap them twice). */
const wrapped = new WeakSet<object>();

function through<T>(a: Admission, gate: Gate, call: CallContext, ch: Channel, attempt: (ch: Channel) => Promise<T>, again: boolean): Promise<T> {
  const p = principalOf(call);
  const tenant = p.billing?.accountId ?? `token:${p.tokenId}`;
  const tokens = gate.effective().tpm === null ? 0 : tokensOf(a.estimate(call));
  const leave = call.onClientLeave ? (l: () => void) => call.onClientLeave!(l) : null;
  const admission = gate.admit(tenant, p.billing?.weight ?? 1, tokens, leave);
  const go = (t: Ticket): Promise<T> => {
    if (t.reason !== null) noteWait(call, gate, t);
    return attempt(ch).then(
      (r) => {
        hold(call, t);
        return r;
      },
      (e: unknown) => {
        t.settle(0);
        if (!isUpstreamRefusal(e)) throw e;
        learnt.add(e as object);
        a.capacity.refused(ch, a.model, refusedLimitOf(e), retryAfterOf(e));
        if (!again) throw e;
        return through(a, gate, call, ch, attempt, false);
      },
    );
  };
  return admission instanceof Ticket ? go(admission) : admission.then(go);
}

/** The ticket is given back with the call's record (http/front/record.ts), or at once when that was written. */
function hold(call: CallContext, t: Ticket): void {
  const st = call.state;
  if (st.recorded) t.settle(undefined);
  else {
    st.capacity?.settle(undefined);
    st.capacity = t;
  }
}

function noteWait(call: CallContext, gate: Gate, t: Ticket): void {
  call.state.capacityWait = { ms: Math.round(t.waitedMs), reason: t.reason ?? 'queue', queue: gate.key, at: Date.now() };
}

/** Refusals a gate already learnt from (the failover's observer sees them again). */
const learnt = new WeakSet<object>();

const isUpstreamRefusal = (e: unknown): boolean => isGatewayError(e) && e.code === 'upstream_rate_limited';

/** Which upstream limit refused (GatewayError.upstreamLimit, when the adapter tells). */
function refusedLimitOf(e: unknown): RefusedLimit {
  const v = (e as { upstreamLimit?: unknown }).upstreamLimit;
  return v === 'requests' || v === 'tokens' || v === 'burst' ? v : null;
}

function retryAfterOf(e: unknown): number | null {
  const v = (e as { retryAfterMs?: unknown }).retryAfterMs;
  return typeof v === 'number' && v > 0 ? v : null;
}

/**
 * A 429 from the upstream on an attempt made without a gate (none existed yet): the account x model learns, so the
 * calls after it are admitted.
 */
export function learnFrom(capacity: Capacity, model: GateModel): (ch: Channel, e: unknown) => void {
  return (ch, e) => {
    if (isUpstreamRefusal(e) && !learnt.has(e as object)) capacity.refused(ch, model, refusedLimitOf(e), retryAfterOf(e));
  };
}
