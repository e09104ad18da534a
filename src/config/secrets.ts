// The secrets a configuration carries, registered for redaction before anything can log them.
import { registerSecret } from '../errors/redact.ts';
import type { Config } from './config.ts';

/** Upstream keys from the environment, the metrics token, tracing headers, and the process's own keys (`extra`). */
export function registerSecrets(config: Config, extra: readonly string[]): void {
  const upstreamKeys = Object.values(config.upstreams).flatMap((u) => Object.values(u.keys));
  for (const s of [...extra, ...upstreamKeys, config.metricsToken, ...Object.values(config.tracing?.headers ?? {})])
    registerSecret(s);
}
