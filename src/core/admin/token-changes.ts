// Changes to an existing token (admin API and CLI alike): edit, top-up, rotation. Each takes effect at once on this
// instance and is announced to the others (the auth cache forgets every secret of the token), and writes an audit line.
import { echo } from '../../errors/echo.ts';
import { hashToken, newTokenSecret } from '../../auth/token-secret.ts';
import { optString } from '../../contracts/fields.ts';
import { MAX_GRACE_MS, rotateTokenBody, tokenPatchBody, topUpBody } from './bodies/tokens.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { TokenPatch, TokenRecord } from '../../store/repos/token-record.ts';
import { audit, type Actor, type AdminDeps } from './deps.ts';
import { getToken } from './tokens.ts';
import { joinableAccount, type TopUpInput } from './accounts.ts';

export type { TopUpInput };
import { parseBudgets } from './budgets.ts';
import { checkExpiry, topUpQuota, type HolderSide } from './holders.ts';
import { waitingDueFor } from '../../store/repos/slot-holders.ts';

/** The fields PATCH /admin/tokens/{id} takes. */
export const TOKEN_PATCH_FIELDS = Object.keys(tokenPatchBody.schema.properties);
export { MAX_GRACE_MS };

/**
 * Validate an edit. `null` removes a limit (quota, rpm_limit, tpm_limit, concurrency_limit, expires_at) or the
 * allow-list (models).
 */
export function parseTokenPatch(body: unknown, now = Date.now()): TokenPatch {
  // The shapes and unknown fields are the schema's (bodies/tokens.ts); the rules after it are not JSON Schema's.
  const o = tokenPatchBody(body);
  if (Object.keys(o).length === 0)
    throw new GatewayError(
      'invalid_request',
      `Nothing to change: send one or more of ${TOKEN_PATCH_FIELDS.join(', ')}`,
    );
  const p: TokenPatch = {};
  if (o.name !== undefined) {
    const name = optString(o, 'name', { max: 200, name: true });
    if (name === undefined || name.trim() === '')
      throw new GatewayError('invalid_parameter', 'name must be a non-empty string', { param: 'name' });
    p.name = name;
  }
  if (o.models !== undefined) p.models = o.models;
  if (o.quota !== undefined) p.quota = o.quota;
  if (o.rpm_limit !== undefined) p.rpmLimit = o.rpm_limit;
  if (o.tpm_limit !== undefined) p.tpmLimit = o.tpm_limit;
  if (o.concurrency_limit !== undefined) p.concurrencyLimit = o.concurrency_limit;
  if (o.expires_at !== undefined) {
    checkExpiry(o.expires_at, now, true);
    p.expiresAt = o.expires_at;
  }
  if (o.account_id !== undefined) p.accountId = o.account_id;
  const budgets = parseBudgets(o);
  if (budgets !== undefined) p.budgets = budgets;
  return p;
}

/** Forget the token in this instance's auth cache, retire its allowances, and tell the other instances. */
async function announce(deps: Pick<AdminDeps, 'applyChange'>, id: string, hashes: string[]): Promise<void> {
  await deps.applyChange({ kind: 'token-changed', hashes, id });
}

async function liveToken(deps: Pick<AdminDeps, 'repos'>, id: string): Promise<TokenRecord> {
  const t = await getToken(deps, id);
  if (t.revokedAt !== null) throw new GatewayError('conflict', `Token ${id} is revoked`);
  return t;
}

/** How many times an edit is tried again when the quota moved between its read and its write, before 409. */
const EDIT_ATTEMPTS = 50;

/**
 * Apply an edit. The write is a compare-and-set on the quota just read: a top-up (or another edit) landing between
 * the read and the write makes it try again from a fresh read, so the audit line's `from` is the value the edit
 * replaced and an edit never silently undoes a credit it did not see.
 */
export async function updateToken(deps: AdminDeps, by: Actor, id: string, patch: TokenPatch): Promise<TokenRecord> {
  const p = { ...patch };
  if (p.models) {
    for (const m of p.models) {
      if (!deps.catalogue.resolve(m))
        throw new GatewayError('invalid_parameter', `Unknown model in allow-list: ${echo(m)}`, { param: 'models' });
    }
    // Stored under canonical names, as at creation.
    p.models = [...new Set(p.models.map((m) => deps.catalogue.canonicalName(m)))];
  }
  if (p.accountId) await joinableAccount(deps, p.accountId);
  for (let attempt = 0; attempt < EDIT_ATTEMPTS; attempt++) {
    const before = await liveToken(deps, id);
    if (!(await deps.repos.tokens.update(id, p, before.quota))) continue;
    await announce(deps, id, (await deps.repos.tokens.secretHashes(id)) ?? []);
    // A lower quota or an expiry may end its waiting tasks (never sent): looked at by the poller's next round.
    await waitingDueFor(deps.store.db, { tokenId: id });
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    for (const k of Object.keys(p) as Array<keyof TokenPatch>) changes[k] = { from: before[k], to: p[k] };
    await audit(deps, by, 'token.update', id, { changes });
    return getToken(deps, id);
  }
  throw new GatewayError(
    'conflict',
    `Token ${id} kept changing while it was being edited (top-ups in flight); try again`,
  );
}

export function parseTopUp(body: unknown): TopUpInput {
  const o = topUpBody(body);
  return { amount: o.amount, idempotencyKey: o.idempotency_key ?? undefined };
}

export interface TopUpAnswer {
  token: TokenRecord;
  amount: number;
  /** False when the idempotency key was used before: nothing was credited again. */
  credited: boolean;
}

export async function topUp(deps: AdminDeps, by: Actor, id: string, input: TopUpInput): Promise<TopUpAnswer> {
  const side: HolderSide<TokenRecord> = {
    kind: 'token',
    announce: async (tokenId) => announce(deps, tokenId, (await deps.repos.tokens.secretHashes(tokenId)) ?? []),
    get: (tokenId) => getToken(deps, tokenId),
  };
  const { holder, ...r } = await topUpQuota(deps, by, side, id, input);
  return { token: holder, ...r };
}

/** No body (or an empty one): the defaults. */
export function parseRotate(body: unknown): { graceMs: number } {
  const o = rotateTokenBody(body ?? {});
  return { graceMs: o.grace_ms ?? 0 };
}

/**
 * A new secret for the same token (id, quota, usage kept). The old one works for `graceMs` more (0: refused at once).
 */
export async function rotateToken(
  deps: AdminDeps,
  by: Actor,
  id: string,
  opts: { graceMs: number },
  now = Date.now(),
): Promise<{ record: TokenRecord; secret: string }> {
  await liveToken(deps, id);
  const old = (await deps.repos.tokens.secretHashes(id)) ?? [];
  const secret = newTokenSecret();
  const graceUntil = opts.graceMs > 0 ? now + opts.graceMs : null;
  if (!(await deps.repos.tokens.rotate(id, hashToken(secret), secret.slice(0, 7), graceUntil)))
    throw new GatewayError('conflict', `Token ${id} is revoked`);
  // Every secret it had: the one just replaced (now previous, or refused) and an older previous one now dropped.
  await announce(deps, id, old);
  await audit(deps, by, 'token.rotate', id, { grace_ms: opts.graceMs, previous_secret_until: graceUntil });
  return { record: await getToken(deps, id), secret };
}
