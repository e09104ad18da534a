// Retry and fail over across the channels serving a model — only before any byte reached the client, and never
// once the upstream may be doing the work. 'safe' (text calls) also retries answers that declined the call (HTTP
// 429 and 5xx answers); 'connect-only' (image and video creation, which produce and bill per call) retries only what
// surely never arrived, plus a 429 on another account. Neither repeats a call that timed out or was cut after it
// was sent (GatewayError.mayHaveRun).
import { GatewayError, isGatewayError } from '../errors/gateway-error.ts';
import type { Channel } from './channel-registry.ts';
import type { CircuitBreakers } from './circuit-breaker.ts';
import { pickChannels } from './weighted-order.ts';
import type { UpstreamAttempt } from '../core/call.ts';
import type { Principal } from '../auth/principal.ts';

export type RetryPolicy = 'safe' | 'connect-only';

export interface FailoverOptions {
  policy: RetryPolicy;
  /** Total attempts across all channels. */
  maxAttempts?: number;
  /** Base back-off between attempts (ms); doubled each time, with jitter. */
  backoffMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /**
   * Told when a channel's upstream account turned out not to be entitled to the model (see ChannelRegistry), with the
   * call's sink.
   */
  onNotEntitled?: (channel: Channel, sink: AttemptSink | undefined) => void;
  /** The model asked for (named on the failover log line). */
  model?: string;
  /** Told of every attempt: its channel, how long it took (ms) and its error (null when it succeeded). */
  onAttempt?: AttemptObserver;
  /** Has the channel room for the call now (capacity/)? Channels with room are tried first, in their order. */
  roomFirst?: (channel: Channel) => boolean;
  /** Before a second attempt: the attempt to make instead (capacity/: admitted through a gate learnt meanwhile). */
  retryThrough?: <T>(
    attempt: (channel: Channel) => Promise<T>,
    sink: AttemptSink | undefined,
  ) => (channel: Channel) => Promise<T>;
}

/**
 * Where a call's attempts are recorded (its request state, for the request log) and its failovers logged: a warn
 * line per failed attempt that is followed by another — channel id, model, error code (the logger is bound to the
 * request id); never a key, URL or upstream message.
 */
export interface AttemptSink {
  readonly state: { channelId: string | null; attempts: UpstreamAttempt[] | null; principal?: Principal | null };
  readonly log: { warn(obj: object, msg: string): void };
}

const errorCodeOf = (e: unknown): string =>
  isGatewayError(e) ? (e.callerAborted ? 'client_closed' : e.code) : 'internal_error';
const elapsed = (since: number): number => Math.round((performance.now() - since) * 100) / 100;

function recordAttempt(sink: AttemptSink | undefined, a: UpstreamAttempt): void {
  if (!sink) return;
  const list = sink.state.attempts;
  if (list === null) sink.state.attempts = [a];
  else list.push(a);
}

export type AttemptObserver = (channel: Channel, ms: number, error: unknown) => void;

/** Was the request certainly not processed upstream? (connection never established / refused / reset before send) */
export function isConnectFailure(e: unknown): boolean {
  return isGatewayError(e) && e.code === 'upstream_unreachable';
}

/** Errors worth another attempt when repeating the call is safe. */
export function isRetryable(e: unknown, policy: RetryPolicy): boolean {
  if (!isGatewayError(e)) return false;
  if (isConnectFailure(e)) return true;
  if (policy === 'connect-only' || e.mayHaveRun) return false;
  return (
    e.code === 'upstream_timeout' ||
    e.code === 'upstream_rate_limited' ||
    e.code === 'upstream_error' ||
    e.code === 'upstream_unavailable' ||
    e.code === 'upstream_unreachable'
  );
}

/**
 * The channels a call tries, in order (at most `want`): by priority, weighted-random within a priority level,
 * skipping open circuits (weighted-order.ts).
 */
export function orderChannels(
  channels: readonly Channel[],
  breakers: CircuitBreakers,
  rand: () => number = Math.random,
  want = 3,
): readonly Channel[] {
  // One channel (the common case): the general path below would return exactly it, open circuit or not.
  if (channels.length === 1) return channels;
  const closed = pickChannels(channels, want, (id) => breakers.isOpen(id), rand);
  // When every circuit is open, still try (the best) one rather than fail without asking.
  return closed.length ? closed : pickChannels(channels, 1, () => false, rand);
}

/** The channels with room first, each part in its order (the same list when that changes nothing). */
export function roomFirst(ordered: readonly Channel[], hasRoom: (channel: Channel) => boolean): readonly Channel[] {
  const room: Channel[] = [];
  const full: Channel[] = [];
  for (const c of ordered) (hasRoom(c) ? room : full).push(c);
  return room.length === 0 || full.length === 0 ? ordered : [...room, ...full];
}

const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Run `attempt` against channels in order until one succeeds. `attempt` must throw GatewayErrors and
 * must not have written anything to the client when it throws. `sink` records each attempt and logs each failover.
 */
export function withFailover<T>(
  channels: readonly Channel[],
  breakers: CircuitBreakers,
  attempt: (channel: Channel) => Promise<T>,
  opts: FailoverOptions,
  sink?: AttemptSink,
): Promise<T> {
  if (channels.length === 0)
    return Promise.reject(new GatewayError('no_channel', 'No upstream channel is available for this model'));
  try {
    let ordered = orderChannels(channels, breakers, Math.random, Math.max(1, opts.maxAttempts ?? 3));
    if (opts.roomFirst !== undefined && ordered.length > 1) ordered = roomFirst(ordered, opts.roomFirst);
    const max = Math.max(1, opts.maxAttempts ?? Math.min(3, ordered.length + 1));
    return new FailoverRun(ordered, max, breakers, attempt, opts, sink).from(0);
  } catch (e) {
    return Promise.reject(e);
  }
}

/**
 * One call's attempts, chained as promise steps rather than an async loop: a call whose first attempt succeeds —
 * nearly every call — takes one `then` on the attempt's promise, not an async function's frame and its await.
 */
class FailoverRun<T> {
  private last: unknown = undefined;

  constructor(
    private readonly ordered: readonly Channel[],
    private readonly max: number,
    private readonly breakers: CircuitBreakers,
    private attempt: (channel: Channel) => Promise<T>,
    private readonly opts: FailoverOptions,
    private readonly sink: AttemptSink | undefined,
  ) {}

  /**
   * Attempt `i` (0-based); after the first, a back-off doubled each time, with jitter. Past the last: the last error.
   */
  from(i: number): Promise<T> {
    if (i >= this.max) return Promise.reject(this.last);
    if (i === 0) return this.at(0);
    if (i === 1 && this.opts.retryThrough) this.attempt = this.opts.retryThrough(this.attempt, this.sink);
    const sleep = this.opts.sleep ?? pause;
    return sleep((this.opts.backoffMs ?? 50) * 2 ** (i - 1) * (0.5 + Math.random() / 2)).then(() => this.at(i));
  }

  private at(i: number): Promise<T> {
    const ch = this.ordered[i % this.ordered.length]!;
    if (!this.breakers.allow(ch.id) && this.ordered.length > 1) return this.from(i + 1);
    const started = performance.now();
    let p: Promise<T>;
    try {
      p = this.attempt(ch);
    } catch (e) {
      p = Promise.reject(e);
    }
    return p.then(
      (r) => this.succeeded(ch, started, r),
      (e: unknown) => this.failed(ch, started, e, i),
    );
  }

  private succeeded(ch: Channel, started: number, r: T): T {
    this.breakers.success(ch.id);
    this.opts.onAttempt?.(ch, performance.now() - started, null);
    const sink = this.sink;
    if (sink) {
      recordAttempt(sink, { channel_id: ch.id, outcome: 'ok', error_code: null, latency_ms: elapsed(started) });
      sink.state.channelId = ch.id;
    }
    return r;
  }

  private failed(ch: Channel, started: number, e: unknown, i: number): Promise<T> {
    this.last = e;
    const { opts, sink } = this;
    opts.onAttempt?.(ch, performance.now() - started, e);
    recordAttempt(sink, {
      channel_id: ch.id,
      outcome: 'error',
      error_code: errorCodeOf(e),
      latency_ms: elapsed(started),
    });
    // Until an attempt succeeds, the request is the last tried channel's (its failure is the client's answer).
    if (sink && !(isGatewayError(e) && e.callerAborted)) sink.state.channelId = ch.id;
    if (!afterFailure(e, ch, this.breakers, opts, i + 1 < this.ordered.length, sink)) return Promise.reject(e);
    if (i + 1 < this.max)
      sink?.log.warn(
        { channel_id: ch.id, model: opts.model ?? null, error_code: errorCodeOf(e), attempt: i + 1 },
        'upstream attempt failed; failing over',
      );
    return this.from(i + 1);
  }
}

/** A failed attempt on `ch`: counts it against the channel, and says whether another attempt may follow. */
function afterFailure(
  e: unknown,
  ch: Channel,
  breakers: CircuitBreakers,
  opts: FailoverOptions,
  otherChannelLeft: boolean,
  sink: AttemptSink | undefined,
): boolean {
  // The client left: nothing to hold against the channel, and nobody to answer.
  if (isGatewayError(e) && e.callerAborted) return false;
  const countsAsChannelFailure =
    isGatewayError(e) &&
    (e.accountRefused ||
      e.code === 'upstream_unreachable' ||
      e.code === 'upstream_unavailable' ||
      e.code === 'upstream_timeout' ||
      e.code === 'upstream_error' ||
      e.code === 'upstream_auth_error');
  if (countsAsChannelFailure) breakers.failure(ch.id, e.code);
  // The account refused any call (arrears, pack used up, key refused) before doing anything: another account may
  // take it, whatever the retry policy.
  if (isGatewayError(e) && e.accountRefused) return otherChannelLeft;
  // The account is not entitled to the model: it refused before doing anything, so any call (connect-only
  // included) may go to another account, and this one is not asked for this model again for a while.
  if (isGatewayError(e) && e.notEntitled) {
    opts.onNotEntitled?.(ch, sink);
    return otherChannelLeft;
  }
  // A 429 is an explicit refusal — a rate limit, or the upstream account's parallel tasks in use: the upstream
  // did not take the call, so even a connect-only call (an async task creation) may go to another account — but not
  // again to this one.
  const refusedHere =
    opts.policy === 'connect-only' &&
    isGatewayError(e) &&
    (e.code === 'upstream_rate_limited' || e.code === 'concurrency_limited');
  if (refusedHere && otherChannelLeft) return true;
  return isRetryable(e, opts.policy);
}
