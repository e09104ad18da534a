// A simulator (DashScope + Kling) for a test file or a describe block, for tests that need the upstream but not a
// gateway in front of it: the simulator's own tests, and tests that run the gateway as a child process.
import { afterAll, beforeAll } from 'vitest';
import { startSimulator, type SimOptions, type Simulator } from '../../simulator/index.ts';
import { GENEROUS_SIM_LIMITS } from './sim-limits.ts';

export { GENEROUS_SIM_ENV, GENEROUS_SIM_LIMITS } from './sim-limits.ts';

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
