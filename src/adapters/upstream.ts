// What an upstream is to the gateway, declared once in its folder (adapters/<upstream>/index.ts): its declaration
// (data: upstream-declaration.ts), the operator's channel check, its limits reader and its task drivers. Config,
// channel validation, the probe and the composition root iterate the list (upstreams.ts).
import type { Channel } from '../routing/channel-registry.ts';
import type { TaskDriver, TaskRecord } from '../tasks/types.ts';
import type { UpstreamClient } from './http-client.ts';
import type { KlingClient } from './kling/client.ts';
import type { UpstreamModelLimits } from './types.ts';
import type { UpstreamDeclaration } from './upstream-declaration.ts';

export type { KeyField } from './upstream-declaration.ts';

/** The upstream clients built in compose.ts, one each, that probes and drivers call through. */
export interface UpstreamClients {
  upstream: UpstreamClient;
  kling: KlingClient;
}

/**
 * Run a creation attempt across the channels serving the task's model, connect-only (the composition root's failover).
 */
export type SubmitVia = <T>(task: TaskRecord, attempt: (channel: Channel) => Promise<T>) => Promise<T>;

/** What the composition root hands a driver besides the clients. */
export interface DriverWiring {
  /** Every channel now (a driver looks for a lost creation on the other accounts of its kind). */
  channels(): readonly Channel[];
  /** A stored creation's send, failing over across the channels serving its model (core/task-submit.ts). */
  submitVia: SubmitVia;
  /** The upstream account a channel's key belongs to (routing/upstream-account.ts). */
  upstreamAccountOf(channel: Channel): string;
}

/** An upstream: its declaration (data) and the calls the gateway makes to it. */
export interface Upstream<K extends string = string> extends UpstreamDeclaration<K> {
  /** The cheapest authenticated call it answers: resolves with the upstream request id, throws a GatewayError. */
  probe(clients: UpstreamClients, ch: Channel): Promise<{ upstreamRequestId: string | null }>;
  /**
   * The account's rate limits per model as the upstream reports them under the channel's key, keyed by UPSTREAM model
   * name; absent when the upstream has no such endpoint. Throws a GatewayError when it cannot be read (the caller
   * keeps what is stated or was learnt).
   */
  readLimits?(clients: UpstreamClients, ch: Channel): Promise<ReadonlyMap<string, UpstreamModelLimits>>;
  /** The task kinds its drivers poll. */
  taskKinds: readonly string[];
  /** A driver per task kind (called by compose.ts only). */
  drivers(clients: UpstreamClients, wiring: DriverWiring): Array<[kind: string, driver: TaskDriver]>;
}
