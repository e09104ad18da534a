import { GatewayError } from '../errors/gateway-error.ts';
import type { BudgetLimit } from '../metering/billing.ts';
import type { AccountRecord } from '../store/repos/accounts.ts';
import type { TokenRecord } from '../store/repos/token-record.ts';
import type { TokensRepo } from '../store/repos/tokens.ts';
import type { Principal } from './principal.ts';
import { hashToken } from './token-secret.ts';

interface CacheEntry {
  record: TokenRecord | null;
  /** The token's account, when it has one. */
  account: AccountRecord | null;
  /** Built once per cache fill (the record is immutable until the next fill). */
  principal: Principal | null;
  /** The bearer is the token's previous secret (a rotation): refused from this time on (ms). */
  graceUntil: number | null;
  at: number;
}

/** The last credential one connection presented, and its hash. */
interface Presented {
  readonly secret: string;
  readonly hash: string;
}

/**
 * Bearer token → Principal, with an in-process cache so the hot path does not touch the
 * database. Revocation through this process invalidates at once; other instances converge
 * within `ttlMs` (or immediately when a shared invalidation bus is wired in).
 */
export class TokenAuth {
  private readonly cache = new Map<string, CacheEntry>();
  /**
   * Per connection (weakly: it goes with the connection), the credential it last presented and that credential's
   * hash. A keep-alive client repeats the same credential on every request, so its SHA-256 is computed once per
   * connection instead of once per request. The plain credential is kept only with the connection that sent it —
   * no process-wide map of plain tokens — and the principal is still looked up by hash in `cache` on every request,
   * so a revocation or a rotation applies to an open connection at once.
   */
  private readonly presented = new WeakMap<object, Presented>();

  constructor(
    private readonly repo: TokensRepo,
    private readonly ttlMs = 5_000,
    private readonly maxEntries = 50_000,
  ) {}

  /** `connection`: the connection the credential came on (see `presented`); omitted, the hash is computed. */
  async authenticate(secret: string | undefined, now = Date.now(), connection?: object): Promise<Principal> {
    const hash = this.hashOf(requireSecret(secret), connection);
    return this.cached(hash, now) ?? this.check(await this.fill(hash, now), now);
  }

  /**
   * The synchronous part of `authenticate`: the principal when the cache answers, null when the database
   * must be asked (then call `authenticate`). Throws the same errors. Lets the request hook skip a promise.
   */
  authenticateCached(secret: string | undefined, now = Date.now(), connection?: object): Principal | null {
    return this.cached(this.hashOf(requireSecret(secret), connection), now);
  }

  /** The principal of a stored hash when the cache holds a fresh entry for it, else null. */
  private cached(hash: string, now: number): Principal | null {
    const hit = this.cache.get(hash);
    if (!hit || now - hit.at > this.ttlMs) return null;
    return this.check(hit, now);
  }

  /** The stored hash of `secret`, reused while `connection` presents the same credential. */
  private hashOf(secret: string, connection: object | undefined): string {
    if (connection === undefined) return hashToken(secret);
    const last = this.presented.get(connection);
    if (last !== undefined && last.secret === secret) return last.hash;
    const hash = hashToken(secret);
    this.presented.set(connection, { secret, hash });
    return hash;
  }

  private async fill(hash: string, now: number): Promise<CacheEntry> {
    const match = await this.repo.findForAuth(hash);
    const record = match?.record ?? null;
    const account = match?.account ?? null;
    const entry: CacheEntry = {
      record,
      account,
      principal: record ? principalOf(record, account) : null,
      graceUntil: match?.graceUntil ?? null,
      at: now,
    };
    if (this.cache.size >= this.maxEntries) this.cache.clear();
    this.cache.set(hash, entry);
    return entry;
  }

  private check(hit: CacheEntry, now: number): Principal {
    const t = hit.record;
    if (!t || !hit.principal) throw new GatewayError('invalid_token', 'Invalid token');
    // Checked on every request, cached or not: the old secret stops at the end of its grace on every instance.
    if (hit.graceUntil !== null && hit.graceUntil <= now)
      throw new GatewayError(
        'invalid_token',
        'Invalid token: it was replaced by a rotation and its grace period is over',
      );
    if (t.revokedAt !== null) throw new GatewayError('token_revoked', 'Token has been revoked');
    if (t.expiresAt !== null && t.expiresAt <= now) throw new GatewayError('token_expired', 'Token has expired');
    const a = hit.account;
    if (a !== null) {
      if (a.revokedAt !== null) throw new GatewayError('token_revoked', "The token's account has been revoked");
      if (a.expiresAt !== null && a.expiresAt <= now)
        throw new GatewayError('token_expired', "The token's account has expired");
    }
    return hit.principal;
  }

  invalidateHash(hash: string): void {
    this.cache.delete(hash);
  }

  /** Forget every cached token of an account (changed or revoked): their next request reads it again. */
  invalidateAccount(accountId: string): void {
    for (const [hash, e] of this.cache) if (e.record?.accountId === accountId) this.cache.delete(hash);
  }

  clear(): void {
    this.cache.clear();
  }
}

/** The account and budgets a token's calls are billed against; null when it has neither (the plain path). */
function billingOf(t: TokenRecord, a: AccountRecord | null): Principal['billing'] {
  if (a === null && t.budgets.length === 0) return null;
  const budgets: BudgetLimit[] = t.budgets.map((b) => ({ holderId: t.id, period: b.period, limit: b.limit }));
  if (a) for (const b of a.budgets) budgets.push({ holderId: a.id, period: b.period, limit: b.limit });
  return Object.freeze({
    accountId: a?.id ?? null,
    priceGroup: a?.priceGroup ?? null,
    timeZone: a?.timeZone ?? null,
    budgets: Object.freeze(budgets),
    weight: a?.weight ?? 1,
  });
}

function principalOf(t: TokenRecord, a: AccountRecord | null): Principal {
  return Object.freeze({
    billing: billingOf(t, a),
    tokenId: t.id,
    name: t.name,
    models: t.models,
    quota: t.quota,
    rpmLimit: t.rpmLimit,
    tpmLimit: t.tpmLimit,
    concurrencyLimit: t.concurrencyLimit,
  });
}

/**
 * The credential of an `Authorization: Bearer <token>` value (scheme case-insensitive, whitespace around and after
 * the scheme ignored), or undefined for another scheme or an empty token. Without a regular expression: this runs
 * on every request. The one bearer parser: client tokens, the admin key and the metrics token alike.
 */
export function bearerOf(value: string): string | undefined {
  const v = value.trim();
  if (v.length < 8 || v.slice(0, 6).toLowerCase() !== 'bearer') return undefined;
  const rest = v.slice(6);
  const token = rest.trimStart();
  // The scheme must be followed by whitespace ("Bearerabc" is no bearer token).
  return token.length < rest.length && token !== '' ? token : undefined;
}

/** Extract the client credential: `Authorization: Bearer …` or `x-api-key` (the messages SDK). */
export function credentialFrom(headers: Record<string, string | string[] | undefined>): string | undefined {
  const auth = headers.authorization;
  const k = headers['x-api-key'];
  return credentialOf(Array.isArray(auth) ? auth[0] : auth, Array.isArray(k) ? k[0] : k);
}

/** The same from the two header values. */
export function credentialOf(authorization: string | undefined, apiKey: string | undefined): string | undefined {
  const token = authorization ? bearerOf(authorization) : undefined;
  if (token) return token;
  // No usable bearer (absent, or another scheme): the messages-style SDK sends x-api-key instead.
  return apiKey?.trim() || undefined;
}

function requireSecret(secret: string | undefined): string {
  if (!secret) throw new GatewayError('missing_token', 'Missing bearer token: send Authorization: Bearer <token>');
  return secret;
}
