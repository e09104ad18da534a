// TOLLWAY_CORS_ORIGINS, read for config.ts.
import { ConfigError, type Env } from './env-vars.ts';

/**
 * Browser origins allowed to call the gateway (src/http/cors.ts): every origin, or exact `scheme://host[:port]` ones.
 */
export interface CorsConfig {
  origins: '*' | ReadonlySet<string>;
}

/**
 * TOLLWAY_CORS_ORIGINS: empty = off, `*` = any origin, else a comma list of exact origins (`https://app.example.com`).
 */
export function corsVar(env: Env): CorsConfig | null {
  const raw = env.TOLLWAY_CORS_ORIGINS?.trim() ?? '';
  if (raw === '') return null;
  if (raw === '*') return { origins: '*' };
  const origins = new Set<string>();
  for (const item of raw
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean)) {
    let u: URL;
    try {
      u = new URL(item);
    } catch {
      throw new ConfigError(`TOLLWAY_CORS_ORIGINS: "${item}" is not an origin (scheme://host[:port])`);
    }
    if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.origin !== item.replace(/\/$/, '').toLowerCase()) {
      throw new ConfigError(`TOLLWAY_CORS_ORIGINS: "${item}" is not an origin (scheme://host[:port], no path)`);
    }
    origins.add(u.origin);
  }
  return origins.size === 0 ? null : { origins };
}
