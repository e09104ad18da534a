// The simulator's rate limits in tests and the container stack: still on, far above any test's traffic.
import type { SimOptions } from '../../simulator/index.ts';

/**
 * The simulator's rate limits in tests: still on, but far above any test's traffic, so a test is throttled only when
 * it asks for low limits (its own options come after these).
 */
export const GENEROUS_SIM_LIMITS = {
  dashscopeRpm: 1_000_000,
  dashscopeTpm: 1_000_000_000_000,
  klingRpm: 1_000_000,
} as const satisfies SimOptions;

/** The same for a gateway process in demo mode (`tollway serve` / `tollway simulate`): its TOLLWAY_SIM_* settings. */
export const GENEROUS_SIM_ENV: Readonly<Record<string, string>> = {
  TOLLWAY_SIM_RPM: String(GENEROUS_SIM_LIMITS.dashscopeRpm),
  TOLLWAY_SIM_TPM: String(GENEROUS_SIM_LIMITS.dashscopeTpm),
  TOLLWAY_SIM_KLING_RPM: String(GENEROUS_SIM_LIMITS.klingRpm),
};
