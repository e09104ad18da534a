// The local secrets shared by `serve` and the CLI: the admin key and the sealing secret, from the environment or
// persisted in the data dir.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomString } from './auth/token-secret.ts';
import type { Config } from './config/config.ts';

/** Read a value persisted in the data dir, or create it (0600) with `make`. */
function persisted(config: Config, file: string, make: () => string): { value: string; created: boolean } {
  const path = join(config.dataDir, file);
  if (existsSync(path)) {
    const v = readFileSync(path, 'utf8').trim();
    if (v) return { value: v, created: false };
  }
  mkdirSync(config.dataDir, { recursive: true });
  const value = make();
  writeFileSync(path, `${value}\n`, { mode: 0o600 });
  return { value, created: true };
}

/**
 * `adminKeyFrom`: the environment, the data dir's file, or generated just now — only then may it be shown (once: a
 * key printed on every start ends up in every log aggregator the output goes to).
 */
export function resolveSecrets(config: Config): {
  adminKey: string;
  adminKeyFrom: 'env' | 'file' | 'created';
  secret: string;
} {
  const admin = config.adminKey
    ? { value: config.adminKey, created: false }
    : persisted(config, 'admin-key', () => `twadmin-${randomString(40)}`);
  const secret = config.secret ?? persisted(config, 'secret', () => randomString(48)).value;
  return { adminKey: admin.value, adminKeyFrom: config.adminKey ? 'env' : admin.created ? 'created' : 'file', secret };
}
