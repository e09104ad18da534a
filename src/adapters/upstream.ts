// What an upstream is to the gateway, declared once in its folder (adapters/<upstream>/index.ts): its channel kind,
// where it answers by default, which regions are refused, the keys a channel carries and which names its account,
// the hosts of its result files, its task-query rate, the operator's channel check, and its task drivers. Config,
// channel validation, the probe and the composition root iterate the list (upstreams.ts).
import type { Channel, ChannelKeys } from '../routing/channel-registry.ts';
import type { TaskDriver, TaskRecord } from '../tasks/types.ts';
import type { UpstreamClient } from './http-client.ts';
import type { KlingClient } from './kling/client.ts';
import type { UpstreamModelLimits } from './types.ts';

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

/** One credential a channel of this upstream carries. */
export interface KeyField {
  /** Where it is kept in the channel's sealed keys. */
  key: keyof ChannelKeys;
  /** Its name in the admin API and the CLI (`api_key`). */
  field: string;
  /** The environment variable an env-provisioned channel reads it from. */
  env: string;
  /** Shown in a channel view only as set or not (a secret), else masked to its last characters. */
  setOnly?: boolean;
}

export interface Upstream<K extends string = string> {
  /** Its channel kind: the name channels, the admin API and the OpenAPI document know it by. */
  kind: K;
  /** The base URL a channel gets when none is given, and the env variable that overrides it for env channels. */
  defaultBaseUrl: string;
  baseUrlEnv: string;
  /** Hosts of this upstream's other regions: refused as a base URL (keys and prices are per region). */
  foreignHosts: RegExp;
  keyFields: readonly KeyField[];
  /** The key that names the upstream account when the operator names none (routing/upstream-account.ts hashes it). */
  accountKey: keyof ChannelKeys;
  /** Hosts its result files (videos, images) are fetched from: the default of TOLLWAY_RESULT_HOSTS. */
  resultHosts: readonly string[];
  /** Its task queries per second per upstream account, when it sets such a limit; `env` overrides the default. */
  queryRate?: { env: string; qps: number };
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
