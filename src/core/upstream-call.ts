// THE metered upstream call: the quota step, the channels that serve the model, and failover across them with the
// retry policy stated at the call. Every upstream call a client request makes — text, images, video creation,
// family A tasks and selections — goes through upstreamCall; the charge that follows is in charge.ts.
import { withOutputHint } from './refusal-hint.ts';
import { tenantOf, type Principal } from '../auth/principal.ts';
import type { ModelEntry } from '../catalogue/types.ts';
import type { Meter, Usage } from '../metering/types.ts';
import type { Channel, ChannelRegistry } from '../routing/channel-registry.ts';
import type { CircuitBreakers } from '../routing/circuit-breaker.ts';
import { withFailover, type AttemptObserver, type FailoverOptions, type RetryPolicy } from '../routing/failover.ts';
import { principalOf, type CallContext } from './call.ts';
import type { AdmissionPlan, CapacityCalls } from './capacity-call.ts';

export type { RetryPolicy };

export interface UpstreamCallDeps {
  readonly channels: ChannelRegistry;
  readonly breakers: CircuitBreakers;
  readonly meter: Meter;
  /** Told of every upstream attempt (the gateway's metrics). */
  readonly metrics?: { readonly upstreamAttempt: AttemptObserver };
  /** Admission to upstream accounts x models (capacity/): synchronous metered calls pass their gate, if any. */
  readonly capacityCalls?: CapacityCalls;
}

export interface CallPlan {
  /** The catalogue entry whose channels serve the call. */
  entry: ModelEntry;
  /** The model name sent upstream, when not the entry's (a dated snapshot): what a not-entitled refusal marks. */
  upstreamModel?: string;
  /** 'safe': may be repeated on timeouts and 5xx; 'connect-only': repeated only when it surely never arrived. */
  retry: RetryPolicy;
  /**
   * `{ reserve }`: for a token with a quota, an upper estimate of the call's usage is held against the quota
   * before the call (refused with insufficient_quota when it does not fit) and settled by its charge
   * (charge.ts) or released when the call fails. 'held': the caller already holds the estimate (async tasks
   * hold through the task engine before they submit). 'free': the call is not metered (a selection session).
   */
  quota: { reserve: (call: CallContext) => Usage } | 'held' | 'free';
  /** Channels to use instead of the entry's (a selection session lives in one upstream account). */
  channels?: readonly Channel[];
  /** Attempts across channels (default: one more than there are channels, at most 3). */
  maxAttempts?: number;
}

/**
 * Run `attempt` on the best channel for the plan, failing over while nothing reached the client. For a token
 * without a quota nothing is awaited before the attempt (the text hot path takes no extra promise).
 */
export function upstreamCall<T>(
  deps: UpstreamCallDeps,
  call: CallContext,
  plan: CallPlan,
  attempt: (ch: Channel) => Promise<T>,
): Promise<T> {
  // Tracing on: each attempt runs in a child span of the request's (the one check made when it is off).
  const trace = call.state.trace;
  if (trace !== null) {
    const bare = attempt;
    attempt = (ch) => trace.attempt(ch, () => bare(ch));
  }
  // Upstream capacity: only once some account x model has a limit (stated, read or learnt) is each attempt wrapped.
  const cap = deps.capacityCalls;
  if (cap !== undefined && metered(plan)) attempt = cap.admitted(plan, call, attempt);
  const p = principalOf(call);
  // A token with an account or budgets reserves too, even without a quota of its own: its account's and budgets' do;
  // so does one a charge was cut at (no room left: its hold is refused rather than the call served for nothing).
  const bound = deps.meter.atBound;
  if (
    typeof plan.quota === 'string' ||
    (p.quota === null && p.billing === null && (bound.size === 0 || !bound.has(p.tokenId)))
  )
    return failover(deps, call, plan, attempt);
  return reserved(deps, call, p, plan.quota.reserve(call), plan, attempt);
}

function reserved<T>(
  deps: UpstreamCallDeps,
  call: CallContext,
  p: Principal,
  estimate: Usage,
  plan: CallPlan,
  attempt: (ch: Channel) => Promise<T>,
): Promise<T> {
  const b = p.billing;
  const price = (u: Usage) => deps.meter.price(plan.entry.id, u, b?.priceGroup).amount;
  const refused = (e: unknown) => Promise.reject(withOutputHint(e, estimate, price, () => deps.meter.now()));
  try {
    const pending = deps.meter.reserve(call.id, p.tokenId, price(estimate), b);
    // Reserved from the token's allowance at once: no promise to wait for.
    return pending === undefined
      ? held(deps, call, plan, attempt)
      : pending.then(() => held(deps, call, plan, attempt), refused);
  } catch (e) {
    return refused(e);
  }
}

function held<T>(
  deps: UpstreamCallDeps,
  call: CallContext,
  plan: CallPlan,
  attempt: (ch: Channel) => Promise<T>,
): Promise<T> {
  call.state.reserved = true;
  // A promise step rather than an async function's frame and await: the call of a busy token takes no more.
  return failover(deps, call, plan, attempt).catch(async (e: unknown) => {
    await releaseReservation(deps.meter, call);
    throw e;
  });
}

/** The call ends without a charge: its reservation (if any) goes back to the quota. Never throws. */
export async function releaseReservation(meter: Meter, call: CallContext): Promise<void> {
  if (!call.state.reserved) return;
  call.state.reserved = false;
  await meter
    .releaseReserved(call.id)
    .catch((e: unknown) => call.log.error({ err: String(e) }, 'reservation release failed; the reaper releases it'));
}

function failover<T>(
  deps: UpstreamCallDeps,
  call: CallContext,
  plan: CallPlan,
  attempt: (ch: Channel) => Promise<T>,
): Promise<T> {
  return withFailover(
    plan.channels ?? channelsFor(deps, call, plan),
    deps.breakers,
    attempt,
    failoverOptions(deps, plan),
    call,
  );
}

/**
 * The entry's channels for this call: a tenant's own not-entitled marks apply only to its calls (entitlement-marks.ts).
 */
function channelsFor(deps: UpstreamCallDeps, call: CallContext, plan: CallPlan): readonly Channel[] {
  return deps.channels.forModel(plan.entry, plan.upstreamModel, call.state.principal);
}

/** A plan whose calls reserve their usage: the synchronous metered calls, which pass their gate. */
const metered = (plan: CallPlan): plan is CallPlan & AdmissionPlan => typeof plan.quota !== 'string';

// One options object per plan and channel registry, so a call with a shared plan (text) allocates none.
const optionsByPlan = new WeakMap<CallPlan, { channels: ChannelRegistry; opts: FailoverOptions }>();

function failoverOptions(deps: UpstreamCallDeps, plan: CallPlan): FailoverOptions {
  const known = optionsByPlan.get(plan);
  if (known !== undefined && known.channels === deps.channels) return known.opts;
  const upstreamModel = plan.upstreamModel ?? plan.entry.upstreamModel;
  const opts: FailoverOptions = {
    policy: plan.retry,
    model: plan.entry.id,
    onNotEntitled: (ch, sink) => {
      const p = sink?.state.principal;
      if (p) deps.channels.markNotEntitled(ch, upstreamModel, tenantOf(p));
    },
  };
  const observe = deps.metrics?.upstreamAttempt;
  const cap = deps.capacityCalls;
  if (cap !== undefined && metered(plan)) {
    // An upstream 429 teaches the account x model's gate, and channels with room are tried first.
    const learn = cap.learnFrom(plan.entry);
    opts.onAttempt = (ch, ms, e) => {
      observe?.(ch, ms, e);
      if (e !== null) learn(ch, e);
    };
    // A call begun before its account x model had a gate retries through the gate a refusal made meanwhile.
    opts.retryThrough = (attempt, sink) => cap.admitted(plan, sink as CallContext, attempt);
    opts.roomFirst = (ch) => {
      const g = cap.capacity.gateFor(ch, plan.entry);
      return g === null || g.hasRoom();
    };
  } else if (observe) opts.onAttempt = observe;
  if (plan.maxAttempts !== undefined) opts.maxAttempts = plan.maxAttempts;
  optionsByPlan.set(plan, { channels: deps.channels, opts });
  return opts;
}
