// Start-up provisioning shared by `serve` and the CLI: persisted local secrets, env channels, demo token.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashToken, randomString } from './auth/token-secret.ts';
import type { Config } from './config/config.ts';
import type { AppDeps } from './http/deps.ts';
import { createChannel } from './http/routes/admin/channels.ts';
import { createToken } from './http/routes/admin/tokens.ts';
import type { ChannelKeys } from './routing/channel-registry.ts';
import type { ChannelKind } from './store/repos/channels.ts';

/** Read a value persisted in the data dir, or create it (0600) with `make`. */
export function persisted(config: Config, file: string, make: () => string): { value: string; created: boolean } {
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

export function resolveSecrets(config: Config): { adminKey: string; adminKeyGenerated: boolean; secret: string } {
  const admin = config.adminKey ? { value: config.adminKey, created: false } : persisted(config, 'admin-key', () => `twadmin-${randomString(40)}`);
  const secret = config.secret ?? persisted(config, 'secret', () => randomString(48)).value;
  return { adminKey: admin.value, adminKeyGenerated: !config.adminKey, secret };
}

type ProvisionDeps = Pick<AppDeps, 'repos' | 'box' | 'channels'>;

/** Make sure a named channel exists with these settings (created, or updated and enabled). */
export async function ensureChannel(deps: ProvisionDeps, name: string, kind: ChannelKind, baseUrl: string, keys: ChannelKeys): Promise<void> {
  const existing = await deps.repos.channels.findByName(name);
  if (!existing) {
    await createChannel(deps, { name, kind, baseUrl, keys, models: null });
    return;
  }
  await deps.repos.channels.update(existing.id, { baseUrl, keyEnc: deps.box.seal(JSON.stringify(keys)) });
  await deps.repos.channels.setStatus(existing.id, 'enabled');
  await deps.channels.reload();
}

export async function disableChannelsNamed(deps: ProvisionDeps, prefix: string): Promise<void> {
  for (const c of await deps.repos.channels.list()) {
    if (c.name.startsWith(prefix) && c.status === 'enabled') await deps.repos.channels.setStatus(c.id, 'disabled');
  }
  await deps.channels.reload();
}

/** Channels for the upstream keys given in the environment. */
export async function provisionEnvChannels(deps: ProvisionDeps, config: Config): Promise<void> {
  if (config.dashscope.apiKey) await ensureChannel(deps, 'env-dashscope', 'dashscope', config.dashscope.baseUrl, { apiKey: config.dashscope.apiKey });
  if (config.kling.accessKey && config.kling.secretKey) {
    await ensureChannel(deps, 'env-kling', 'kling', config.kling.baseUrl, { accessKey: config.kling.accessKey, secretKey: config.kling.secretKey });
  }
}

/** The demo token: reused across restarts (its secret kept in the data dir), recreated if revoked. */
export async function demoToken(deps: Pick<AppDeps, 'repos' | 'catalogue'>, config: Config): Promise<string> {
  const path = join(config.dataDir, 'demo-token');
  if (existsSync(path)) {
    const secret = readFileSync(path, 'utf8').trim();
    const t = secret ? await deps.repos.tokens.findByHash(hashToken(secret)) : null;
    if (t && t.revokedAt === null && (t.expiresAt === null || t.expiresAt > Date.now())) return secret;
  }
  const { secret } = await createToken(deps, { name: 'demo' });
  mkdirSync(config.dataDir, { recursive: true });
  writeFileSync(path, `${secret}\n`, { mode: 0o600 });
  return secret;
}
