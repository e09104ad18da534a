// Each upstream's base URL and keys from the environment (UPSTREAMS' variables), read for config.ts.
import { UPSTREAMS, type ChannelKind } from '../adapters/upstreams.ts';
import type { ChannelKeys } from '../routing/channel-registry.ts';
import { ConfigError, urlVar, type Env } from './env-vars.ts';

/** An upstream as the environment gives it: its base URL, and the keys of an env-provisioned channel (when set). */
export interface EnvUpstream {
  baseUrl: string;
  keys: ChannelKeys;
}

export function checkRegion(name: string, url: string, foreign: RegExp): void {
  const host = new URL(url).hostname;
  if (foreign.test(host)) {
    throw new ConfigError(
      `${name} points at ${host}, an endpoint outside the single domestic region this gateway serves; ` +
        'use the Beijing endpoint (keys and endpoints of another region must not be mixed in)',
    );
  }
}

/**
 * Each upstream's base URL (its own region only) and keys from the environment; an upstream's keys are set all
 * together or not at all.
 */
export function envUpstreams(env: Env): Record<ChannelKind, EnvUpstream> {
  const out = {} as Record<ChannelKind, EnvUpstream>;
  for (const u of UPSTREAMS) {
    const baseUrl = urlVar(env, u.baseUrlEnv, u.defaultBaseUrl);
    checkRegion(u.baseUrlEnv, baseUrl, u.foreignHosts);
    const keys: ChannelKeys = {};
    for (const f of u.keyFields) {
      const v = env[f.env]?.trim();
      if (v) keys[f.key] = v;
    }
    const set = Object.keys(keys).length;
    if (set > 0 && set < u.keyFields.length)
      throw new ConfigError(`${u.keyFields.map((f) => f.env).join(' and ')} must be set together`);
    out[u.kind] = { baseUrl, keys };
  }
  return out;
}

/** An upstream whose keys the environment gives (an env channel is provisioned for it). */
export const hasEnvKeys = (u: EnvUpstream): boolean => Object.keys(u.keys).length > 0;
