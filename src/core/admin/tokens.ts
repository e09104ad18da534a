// Client tokens as the operator manages them (admin API and CLI alike): create, list, revoke, and the demo token.
import { echo } from '../../errors/echo.ts';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newCallbackSecret } from '../../auth/callback-secret.ts';
import { hashToken, newId, newTokenSecret } from '../../auth/token-secret.ts';
import { reqString } from '../../contracts/fields.ts';
import { createTokenBody, MAX_TPM } from './bodies/tokens.ts';
import type { Budget } from '../../metering/periods.ts';
import { joinableAccount } from './accounts.ts';
import { parseBudgets } from './budgets.ts';
import { checkExpiry } from './holders.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { TokenRecord } from '../../store/repos/token-record.ts';
import type { CreatedTokenView, TokenView } from '../views.ts';
import { audit, type Actor, type AdminDeps } from './deps.ts';
import { stopHolder } from './holder-stop.ts';

/** Token as shown to the operator: never the secret, nor its callback secret. */
export function publicToken(t: TokenRecord): TokenView {
  return {
    id: t.id,
    name: t.name,
    prefix: t.prefix,
    models: t.models,
    quota: t.quota,
    spent: t.spent,
    held: t.held,
    rpm_limit: t.rpmLimit,
    tpm_limit: t.tpmLimit,
    concurrency_limit: t.concurrencyLimit,
    expires_at: t.expiresAt,
    revoked_at: t.revokedAt,
    created_at: t.createdAt,
    previous_secret_until: t.previousSecretUntil,
    callback_secret_issued_at: t.callbackSecretIssuedAt,
    previous_callback_secret_until: t.previousCallbackSecretUntil,
    account_id: t.accountId,
    budgets: t.budgets,
  };
}

/** A token as created: the record, its secret and its callback secret (both shown only in the creation's answer). */
export interface CreatedToken {
  record: TokenRecord;
  secret: string;
  callbackSecret: string;
}

/** The answer to a creation: the only time the secret and the callback secret are shown. */
export function createdToken({ record, secret, callbackSecret }: CreatedToken): CreatedTokenView {
  const { id, name, models, quota, expiresAt, createdAt } = record;
  return {
    id,
    name,
    token: secret,
    callback_secret: callbackSecret,
    models,
    quota,
    expires_at: expiresAt,
    created_at: createdAt,
    account_id: record.accountId,
    budgets: record.budgets,
  };
}

export interface CreateTokenInput {
  name: string;
  models?: string[] | undefined;
  quota?: number | undefined;
  expiresAt?: number | undefined;
  rpmLimit?: number | undefined;
  tpmLimit?: number | undefined;
  concurrencyLimit?: number | undefined;
  accountId?: string | undefined;
  budgets?: Budget[] | undefined;
}

export { MAX_TPM };

export function parseCreateToken(body: unknown): CreateTokenInput {
  // The shapes and unknown fields are the schema's (bodies/tokens.ts); the rules after it are not JSON Schema's.
  const o = createTokenBody(body);
  const name = reqString(o, 'name', { max: 200, name: true });
  // Milliseconds since the epoch, like every timestamp here; a past value (or seconds by mistake) is refused.
  checkExpiry(o.expires_at ?? undefined, Date.now());
  return {
    name,
    models: o.models ?? undefined,
    quota: o.quota ?? undefined,
    expiresAt: o.expires_at ?? undefined,
    rpmLimit: o.rpm_limit ?? undefined,
    tpmLimit: o.tpm_limit ?? undefined,
    concurrencyLimit: o.concurrency_limit ?? undefined,
    accountId: o.account_id ?? undefined,
    budgets: parseBudgets(o),
  };
}

/** Store a new token: the record and its secrets. No audit line (start-up provisioning and tests); see issueToken. */
export async function createToken(
  deps: Pick<AdminDeps, 'repos' | 'catalogue' | 'box'>,
  input: CreateTokenInput,
): Promise<CreatedToken> {
  for (const m of input.models ?? []) {
    if (!deps.catalogue.resolve(m))
      throw new GatewayError('invalid_parameter', `Unknown model in allow-list: ${echo(m)}`, { param: 'models' });
  }
  if (input.accountId !== undefined) await joinableAccount(deps, input.accountId);
  const secret = newTokenSecret();
  const callbackSecret = newCallbackSecret();
  const record = await deps.repos.tokens.create({
    id: newId('tok'),
    name: input.name,
    secretHash: hashToken(secret),
    prefix: secret.slice(0, 7),
    // Historical aliases are stored under their canonical name, the name visibility checks compare.
    models: input.models ? [...new Set(input.models.map((m) => deps.catalogue.canonicalName(m)))] : null,
    quota: input.quota ?? null,
    expiresAt: input.expiresAt ?? null,
    rpmLimit: input.rpmLimit ?? null,
    tpmLimit: input.tpmLimit ?? null,
    concurrencyLimit: input.concurrencyLimit ?? null,
    // Sealed, not hashed: the gateway signs with it.
    callbackSecret: deps.box.seal(callbackSecret),
    accountId: input.accountId ?? null,
    budgets: input.budgets ?? [],
  });
  return { record, secret, callbackSecret };
}

/** The admin action: create a token and audit it. */
export async function issueToken(deps: AdminDeps, by: Actor, input: CreateTokenInput): Promise<CreatedToken> {
  const created = await createToken(deps, input);
  const { record } = created;
  await audit(deps, by, 'token.create', record.id, {
    name: record.name,
    models: record.models,
    quota: record.quota,
    ...(record.accountId ? { account_id: record.accountId } : {}),
    ...(record.budgets.length ? { budgets: record.budgets } : {}),
  });
  return created;
}

export function listTokens(deps: Pick<AdminDeps, 'repos'>): Promise<TokenRecord[]> {
  return deps.repos.tokens.list();
}

export async function getToken(deps: Pick<AdminDeps, 'repos'>, id: string): Promise<TokenRecord> {
  const t = await deps.repos.tokens.get(id);
  if (!t) throw new GatewayError('not_found', `Token ${id} not found`);
  return t;
}

/** Revoke at once: this instance's auth cache forgets the token, the others are told. */
export async function revokeToken(deps: AdminDeps, by: Actor, id: string): Promise<TokenRecord> {
  const before = await deps.repos.tokens.get(id);
  if (!before) throw new GatewayError('not_found', `Token ${id} not found`);
  // Revoking a revoked token changes nothing: the same answer (its first revocation time), no second audit line.
  if (before.revokedAt !== null) return before;
  // Every secret it has: a previous one still in its grace period (a rotation) is cached under its own hash.
  const hashes = await deps.repos.tokens.secretHashes(id);
  if (!hashes || !(await deps.repos.tokens.revoke(id))) throw new GatewayError('not_found', `Token ${id} not found`);
  await deps.applyChange({ kind: 'token-changed', hashes, id });
  // Its tasks waiting for a parallel-task slot were never sent: the poller ends them uncharged at its next round, and
  // the answer waits for its creations in flight (holder-stop.ts).
  await stopHolder(deps.store.db, { tokenId: id });
  await audit(deps, by, 'token.revoke', id);
  return getToken(deps, id);
}

/** The demo token: reused across restarts (its secret kept in the data dir), recreated if revoked or expired. */
export async function demoToken(
  deps: Pick<AdminDeps, 'repos' | 'catalogue' | 'box'>,
  dataDir: string,
): Promise<string> {
  const path = join(dataDir, 'demo-token');
  if (existsSync(path)) {
    const secret = readFileSync(path, 'utf8').trim();
    const t = secret ? await deps.repos.tokens.findByHash(hashToken(secret)) : null;
    if (t && t.revokedAt === null && (t.expiresAt === null || t.expiresAt > Date.now())) return secret;
  }
  const { secret } = await createToken(deps, { name: 'demo' });
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(path, `${secret}\n`, { mode: 0o600 });
  return secret;
}
