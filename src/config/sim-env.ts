// TOLLWAY_SIM_RPM / _TPM / _KLING_RPM / _MODEL_LIMITS: the built-in simulator's synchronous rate limits (demo mode and
// `tollway simulate`). Unset, the simulator keeps its own defaults (a small account: simulator/rate-limits.ts).
import { ConfigError, intVar, type Env } from './env-vars.ts';

export interface SimLimitsConfig {
  /** DashScope requests per minute per account and model (0 = no limit). */
  rpm?: number;
  /** DashScope tokens per minute per account and model (0 = no limit). */
  tpm?: number;
  /** Kling creations per minute on its account (0 = no limit). */
  klingRpm?: number;
  /** Per upstream model overrides of rpm and tpm. */
  modelLimits?: Record<string, { rpm?: number; tpm?: number }>;
}

const MAX = 1_000_000_000_000;

function optionalInt(env: Env, name: string): number | undefined {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : intVar(env, name, 0, 0, MAX);
}

const NAME = 'TOLLWAY_SIM_MODEL_LIMITS';

/** `{"<upstream model>": {"rpm": n, "tpm": n}}`, either field optional. */
function modelLimits(raw: string | undefined): SimLimitsConfig['modelLimits'] {
  if (raw === undefined || raw.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(`${NAME} must be a JSON object, got "${raw}"`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new ConfigError(`${NAME} must be a JSON object`);
  const out: Record<string, { rpm?: number; tpm?: number }> = {};
  for (const [model, v] of Object.entries(parsed)) {
    if (typeof v !== 'object' || v === null)
      throw new ConfigError(`${NAME}: "${model}" must be an object like {"rpm": 60, "tpm": 100000}`);
    const entry: { rpm?: number; tpm?: number } = {};
    for (const [k, n] of Object.entries(v)) {
      if ((k !== 'rpm' && k !== 'tpm') || typeof n !== 'number' || !Number.isInteger(n) || n < 0)
        throw new ConfigError(`${NAME}: "${model}" takes only "rpm" and "tpm", each an integer >= 0`);
      entry[k] = n;
    }
    out[model] = entry;
  }
  return out;
}

export function simLimitsConfig(env: Env): SimLimitsConfig {
  const rpm = optionalInt(env, 'TOLLWAY_SIM_RPM');
  const tpm = optionalInt(env, 'TOLLWAY_SIM_TPM');
  const klingRpm = optionalInt(env, 'TOLLWAY_SIM_KLING_RPM');
  const models = modelLimits(env.TOLLWAY_SIM_MODEL_LIMITS);
  return {
    ...(rpm !== undefined ? { rpm } : {}),
    ...(tpm !== undefined ? { tpm } : {}),
    ...(klingRpm !== undefined ? { klingRpm } : {}),
    ...(models ? { modelLimits: models } : {}),
  };
}

/** The simulator's options for these settings. */
export function simLimitOptions(c: SimLimitsConfig): {
  dashscopeRpm?: number;
  dashscopeTpm?: number;
  klingRpm?: number;
  dashscopeModelLimits?: SimLimitsConfig['modelLimits'];
} {
  return {
    ...(c.rpm !== undefined ? { dashscopeRpm: c.rpm } : {}),
    ...(c.tpm !== undefined ? { dashscopeTpm: c.tpm } : {}),
    ...(c.klingRpm !== undefined ? { klingRpm: c.klingRpm } : {}),
    ...(c.modelLimits ? { dashscopeModelLimits: c.modelLimits } : {}),
  };
}
