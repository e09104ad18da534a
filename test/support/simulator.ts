// A simulator (DashScope + Kling) for a test file or a describe block, for tests that need the upstream but not a
// gateway in front of it: the simulator's own tests, and tests that run the gateway as a child process.
import { afterAll, beforeAll } from 'vitest';
import { startSimulator, type SimOptions, type Simulator } from '../../simulator/index.ts';

/**
 * The simulator's rate limits in tests: still on, but far above any test's traffic, so a test is throttled only when
 * it asks for low limits (its own options come after these).
 */
export const GENEROUS_SIM_LIMITS = { dashscopeRpm: 1_000_000, dashscopeTpm: 1_000_000_000, klingRpm: 1_000_000 } as const satisfies SimOptions;

/** The same for a gateway process in demo mode (`tollway serve` / `tollway simulate`): its TOLLWAY_SIM_* settings. */
export const GENEROUS_SIM_ENV: Readonly<Record<string, string>> = {
  TOLLWAY_SIM_RPM: String(GENEROUS_SIM_LIMITS.dashscopeRpm),
  TOLLWAY_SIM_TPM: String(GENEROUS_SIM_LIMITS.dashscopeTpm),
  TOLLWAY_SIM_KLING_RPM: String(GENEROUS_SIM_LIMITS.klingRpm),
};

/** Started before the block's tests, closed after them. Read `.sim` inside tests and hooks. */
export function useSimulator(opts: SimOptions = {}): { readonly sim: Simulator } {
  let sim: Simulator | undefined;
  beforeAll(async () => {
    sim = await startSimulator({ ...GENEROUS_SIM_LIMITS, ...opts });
  });
  afterAll(async () => sim?.close());
  return {
    get sim() {
      return sim!;
    },
  };
}
