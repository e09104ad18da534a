// One call as the core sees it, whichever HTTP front carried it: its request id, the facts gathered along the way
// (written to the request log at the end), and a logger bound to the request id. No HTTP types.
import type { Logger } from 'pino';
import type { Principal } from '../auth/principal.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { UpstreamAttempt } from '../store/repos/request-log.ts';
import type { Staff } from './staff/roles.ts';

export type { UpstreamAttempt };

/** Per-request facts gathered along the way and written to the request log at the end. */
export interface RequestState {
  /** performance.now() when the request arrived (ms, sub-ms precision; a number, not a BigInt per request). */
  startedAt: number;
  /** The client's address (http/front/address.ts clientAddress: the peer, or the one trusted proxies name). */
  client: string;
  principal: Principal | null;
  /** The console session behind an admin request authenticated by cookie (null otherwise): audit lines name it. */
  consoleSession: string | null;
  /** Who is calling the admin API, and in which role (set by the admin auth hook); null elsewhere. */
  staff: Staff | null;
  /** The account member behind a portal API request (set by the portal's auth hook); absent elsewhere. */
  portal?: { memberId: string; accountId: string; sessionId: string; keyId: string | null };
  model: string | null;
  usage: unknown;
  /** The metered tokens (input + output) of a text call, counted against a tokens-per-minute limit at the end. */
  tokens?: number;
  amount: number;
  upstreamRequestId: string | null;
  errorCode: string | null;
  /**
   * The upstream's own words on the refusal answered (operators: the log line and the request-log row; never the
   * client).
   */
  upstreamError: string | null;
  /** The channel whose attempt answered (null: no upstream call, or none succeeded). */
  channelId: string | null;
  /** Every upstream attempt in order (null: no upstream call was made). */
  attempts: UpstreamAttempt[] | null;
  /** ms from arrival to the first byte of the answer written to the client (null: nothing was written). */
  ttfbMs: number | null;
  /** A reservation is held against the token's quota under this call's request id (core/upstream-call.ts). */
  reserved?: boolean;
  /** The request's trace span while tracing is on (observe/tracing.ts); null when it is off. */
  trace: RequestTrace | null;
  /**
   * Gives back the token's concurrency slot (null: none held). Called with the request's record — once the call has
   * settled and its response is over — not when the client hangs up: a call its client left still runs upstream.
   */
  slot: (() => void) | null;
  /**
   * The request's record was written: a slot admitted after that (the client left during admission) goes back at once.
   */
  recorded: boolean;
  /** The upstream account x model admission this call holds (capacity/), settled with its record; null: none. */
  capacity: { settle(usedTokens: number | undefined): void } | null;
  /** How long the call waited for upstream capacity and why (null: it did not wait): its trace's capacity step. */
  capacityWait: { ms: number; reason: string; queue: string; at: number } | null;
  /** The call's upstream attempts pass their gates (capacity-call.ts): a retry is not admitted twice. */
  gated: boolean;
}

/** A request's server span: upstream attempts run in child spans of it; it ends with the request's record. */
export interface RequestTrace {
  attempt<T>(channel: { readonly id: string; readonly name: string }, run: () => Promise<T>): Promise<T>;
  end(route: string, status: number, state: RequestState): void;
}

/** Anything carrying a request state: a Fastify request, a text-lane exchange, a core call. */
export interface HasState {
  readonly state: RequestState;
}

export interface CallContext extends HasState {
  readonly id: string;
  /** A logger bound to the request id. */
  readonly log: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Subscribe to the client leaving before its answer; returns the unsubscribe (a queued call leaves the queue). */
  onClientLeave?(listener: () => void): () => void;
}

export function principalOf(call: HasState): Principal {
  const p = call.state.principal;
  if (!p) throw new GatewayError('missing_token', 'Missing bearer token: send Authorization: Bearer <token>');
  return p;
}
