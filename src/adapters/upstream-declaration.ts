// What an upstream declares as data in its folder (adapters/<upstream>/declaration.ts), importing nothing: its channel
// kind, where it answers, its keys and which names its account, its result hosts and its task-query rate. Routing, the
// catalogue and config read these (upstream-kinds.ts) without the upstream's clients and drivers (upstream.ts).

/** The credentials a channel carries, sealed at rest (every upstream's fields: each uses its own). */
export interface ChannelKeys {
  apiKey?: string;
  accessKey?: string;
  secretKey?: string;
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

export interface UpstreamDeclaration<K extends string = string> {
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
}
