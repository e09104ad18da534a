// A synchronous upstream call through its account x model's gate (capacity/): each attempt is admitted first —
// at once when there is room, else after a wait in the fair queue, or refused 429 by the gateway itself — and its
// ticket is held until the call's record (its answer or stream is over). A 429 from the upstream teaches the gate;
// a 'safe' call it refused waits its turn again and is tried once more instead of being answered at once.
// While no account x model has a limit (stated, read or learnt) a call takes none of this: one check.
import type { Capacity, GateModel } from '../capacity/capacity.ts';
import type { Gate } from '../capacity/gate.ts';
import { Ticket } from '../capacity/ticket.ts';
import type { RefusedLimit } from '../capacity/limits.ts';
import { isGatewayError } from '../errors/gateway-error.ts';
import type { Usage } from '../metering/types.ts';
import type { Channel } from '../routing/channel-registry.ts';
import type { RetryPolicy } from '../routing/failover.ts';
import { principalOf, type CallContext } from './call.ts';

/** What a call needs to pass a gate: the model, its retry policy and its usage estimate (one per call plan). */
export interface AdmissionPlan {
  readonly entry: GateModel;
  readonly retry: RetryPolicy;
  readonly quota: { readonly reserve: (call: CallContext) => Usage };
}

type Attempt<T> = (ch: Channel) => Promise<T>;

const tokensOf = (u: Usage): number => (u.kind === 'tokens' ? u.inputTokens + u.outputTokens : 0);

/** The gates as calls meet them; built with the Capacity in the composition root. */
export class CapacityCalls {
  /** Refusals a gate already learnt from (the failover's observer sees them again). */
  private readonly learnt = new WeakSet<object>();

  constructor(readonly capacity: Capacity) {}

  /**
   * `attempt`, admitted by the gate of its channel's account x model when it has one — or `attempt` itself while no
   * account x model has a limit, or when the call's attempts are already admitted (a retry is not wrapped twice).
   */
  admitted<T>(plan: AdmissionPlan, call: CallContext, attempt: Attempt<T>): Attempt<T> {
    if (call.state.gated || !this.capacity.active()) return attempt;
    call.state.gated = true;
    return (ch) => {
      const gate = this.capacity.gateFor(ch, plan.entry);
      return gate === null ? attempt(ch) : this.through(plan, gate, call, ch, attempt, plan.retry === 'safe');
    };
  }

  /**
   * A 429 from the upstream on an attempt made without a gate (none existed yet): the account x model learns, so the
   * calls after it are admitted.
   */
  learnFrom(model: GateModel): (ch: Channel, e: unknown) => void {
    return (ch, e) => {
      if (isUpstreamRefusal(e) && !this.learnt.has(e as object))
        this.capacity.refused(ch, model, refusedLimitOf(e), retryAfterOf(e));
    };
  }

  private through<T>(
    plan: AdmissionPlan,
    gate: Gate,
    call: CallContext,
    ch: Channel,
    attempt: Attempt<T>,
    again: boolean,
  ): Promise<T> {
    const tokens = gate.countsTokens() ? tokensOf(plan.quota.reserve(call)) : 0;
    const p = principalOf(call);
    const leave = call.onClientLeave ? (l: () => void) => call.onClientLeave!(l) : null;
    const admission = gate.admit(p.billing?.accountId ?? `token:${p.tokenId}`, p.billing?.weight ?? 1, tokens, leave);
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
          this.learnt.add(e as object);
          this.capacity.refused(ch, plan.entry, refusedLimitOf(e), retryAfterOf(e));
          if (!again) throw e;
          return this.through(plan, gate, call, ch, attempt, false);
        },
      );
    };
    return admission instanceof Ticket ? go(admission) : admission.then(go);
  }
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
  call.state.capacityWait = {
    ms: Math.round(t.waitedMs),
    reason: t.reason ?? 'queue',
    queue: gate.key,
    at: Date.now(),
  };
}

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
