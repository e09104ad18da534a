import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/env-vars.ts';
import { simLimitOptions, simLimitsConfig } from '../../src/config/sim-env.ts';

describe('TOLLWAY_SIM_* rate limits', () => {
  it("unset, the simulator's own defaults stay (no option passed)", () => {
    expect(simLimitOptions(simLimitsConfig({}))).toEqual({});
    expect(simLimitOptions(simLimitsConfig({ TOLLWAY_SIM_RPM: '', TOLLWAY_SIM_MODEL_LIMITS: ' ' }))).toEqual({});
  });

  it('set, each becomes its simulator option (0 = no limit)', () => {
    expect(
      simLimitOptions(
        simLimitsConfig({
          TOLLWAY_SIM_RPM: '60',
          TOLLWAY_SIM_TPM: '0',
          TOLLWAY_SIM_KLING_RPM: '5',
          TOLLWAY_SIM_MODEL_LIMITS: '{"qwen3.7-plus": {"rpm": 10}, "text-embedding-v4": {"tpm": 5000, "rpm": 0}}',
        }),
      ),
    ).toEqual({
      dashscopeRpm: 60,
      dashscopeTpm: 0,
      klingRpm: 5,
      dashscopeModelLimits: { 'qwen3.7-plus': { rpm: 10 }, 'text-embedding-v4': { tpm: 5000, rpm: 0 } },
    });
  });

  it('refuses a malformed value at start, naming it', () => {
    expect(() => simLimitsConfig({ TOLLWAY_SIM_RPM: 'many' })).toThrow(/TOLLWAY_SIM_RPM/);
    for (const bad of ['[1]', '{"m": 5}', '{"m": {"qps": 5}}', '{"m": {"rpm": -1}}', '{"m": {"rpm": 1.5}}', 'not json'])
      expect(() => simLimitsConfig({ TOLLWAY_SIM_MODEL_LIMITS: bad }), bad).toThrow(ConfigError);
  });
});
