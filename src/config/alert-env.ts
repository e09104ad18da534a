// TOLLWAY_ALERT_* and TOLLWAY_WEBHOOK_*: when the operator's alerts are checked and how their webhooks are delivered.
import { intVar, type Env } from './env-vars.ts';

export interface AlertConfig {
  /** How often spending and the task failure rate are checked (ms). */
  checkMs: number;
  /** Delivery wake-up interval (ms). */
  tickMs: number;
  /** First retry delay of a failed delivery (ms); doubles per attempt, capped at 1 hour. */
  backoffBaseMs: number;
  /** Attempts before a delivery is given up (state `failed`). */
  maxAttempts: number;
  /** Per-delivery timeout (ms). */
  timeoutMs: number;
  /** The failed share of finished tasks (percent) that raises `tasks.failure_rate`. */
  taskFailurePercent: number;
  /** The window the failure rate is taken over (ms); at most one alert per window. */
  taskFailureWindowMs: number;
  /** Fewer finished tasks than this in the window raise no alert. */
  taskFailureMinTasks: number;
}

export function alertConfig(env: Env): AlertConfig {
  return {
    checkMs: intVar(env, 'TOLLWAY_ALERT_CHECK_MS', 30_000, 10, 3_600_000),
    tickMs: intVar(env, 'TOLLWAY_WEBHOOK_TICK_MS', 1000, 10, 600_000),
    backoffBaseMs: intVar(env, 'TOLLWAY_WEBHOOK_BACKOFF_MS', 5000, 10, 3_600_000),
    maxAttempts: intVar(env, 'TOLLWAY_WEBHOOK_MAX_ATTEMPTS', 8, 1, 100),
    timeoutMs: intVar(env, 'TOLLWAY_WEBHOOK_TIMEOUT_MS', 10_000, 100, 600_000),
    taskFailurePercent: intVar(env, 'TOLLWAY_ALERT_TASK_FAILURE_PERCENT', 50, 1, 100),
    taskFailureWindowMs: intVar(env, 'TOLLWAY_ALERT_TASK_FAILURE_WINDOW_MS', 900_000, 60_000, 7 * 86_400_000),
    taskFailureMinTasks: intVar(env, 'TOLLWAY_ALERT_TASK_FAILURE_MIN_TASKS', 10, 1, 1_000_000),
  };
}
