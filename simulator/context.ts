import type { FaultController } from './faults.ts';

export interface SimOptions {
  port?: number;
  host?: string;
  /** The URL others reach the simulator at, used in the result URLs it hands out (default: its listening address). */
  publicUrl?: string;
  dashscopeApiKey?: string;
  klingAccessKey?: string;
  klingSecretKey?: string;
  /** How long simulated async tasks take to finish (ms). */
  taskDurationMs?: number;
  /** How long result URLs stay valid (ms). */
  resultTtlMs?: number;
  /** Fixed delay before every answer (ms); 0 for benchmarks. */
  latencyMs?: number;
  /**
   * Kling: parallel tasks per model version on the account (a task holds one from creation until it ends; over it a
   * creation gets 429 / 1303). Default kling/slots.ts DEFAULT_KLING_TASK_SLOTS; 0 = no limit. Settable while running
   * (ctx.opts, or POST /__sim/kling/task-slots {"slots": n}).
   */
  klingTaskSlots?: number;
  /**
   * DashScope task queries (single and list) per second per Alibaba Cloud account, shared by every key of it; over it
   * the answer is 429 Throttling.RateQuota. Default 20, as documented; 0 = no limit.
   */
  dashscopeQueryQps?: number;
  /**
   * DashScope synchronous calls (chat, responses, messages, embeddings, multimodal and image generation): requests and
   * tokens per minute per account and upstream model, also enforced per second (/60). Over them: 429 with the limit's
   * code (rate-limits.ts). Defaults DEFAULT_SYNC_RPM / DEFAULT_SYNC_TPM, a small account; 0 = no limit.
   */
  dashscopeRpm?: number;
  dashscopeTpm?: number;
  /** Per upstream model overrides of the two (`{"qwen3.7-plus": {"rpm": 60}}`); a field left out keeps the default. */
  dashscopeModelLimits?: Record<string, { rpm?: number; tpm?: number }>;
  /** Kling creations per minute on its account; over it: 429 / 1302. Default DEFAULT_KLING_RPM; 0 = no limit. */
  klingRpm?: number;
  /** The clock of the rate limits (ms since the epoch), for tests that move time instead of waiting. */
  now?: () => number;
  /** More DashScope keys, each → the account it belongs to (the main key belongs to account `main`). */
  dashscopeKeys?: Record<string, string>;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** The JSON body's text as it arrived (JSON bodies only), to check what was sent byte for byte. */
  text?: string;
  at: number;
  /** The client closed the connection before the answer was complete (the simulator did not cut it itself). */
  aborted?: boolean;
}

export interface SimContext {
  opts: Required<Omit<SimOptions, 'port' | 'host' | 'publicUrl'>>;
  faults: FaultController;
  /** Every request received (bounded), for tests to observe what the gateway sent. */
  recorded: RecordedRequest[];
  /** Base URL the simulator is reachable at (set once listening). */
  baseUrl: string;
  /** Extension point: per-area state (tasks, sessions …) keyed by area name. */
  state: Map<string, unknown>;
}

export const DEFAULT_SIM_KEYS = {
  dashscopeApiKey: 'sk-sim-dashscope-0000000000000000',
  klingAccessKey: 'sim-kling-access-key',
  klingSecretKey: 'sim-kling-secret-key-000000000000',
};
