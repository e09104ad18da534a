import { GatewayError } from '../errors/gateway-error.ts';
import type { TokenRecord, TokensRepo } from '../store/repos/tokens.ts';
import type { Principal } from './principal.ts';
import { hashToken } from './token-secret.ts';

interface CacheEntry {
  record: TokenRecord | null;
  at: number;
}

/**
 * Bearer token → Principal, with an in-process cache so the hot path does not touch the
 * database. Revocation through this process invalidates at once; other instances converge
 * within `ttlMs` (or immediately when a shared invalidation bus is wired in).
 */
export class TokenAuth {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly repo: TokensRepo,
    private readonly ttlMs = 5_000,
    private readonly maxEntries = 50_000,
  ) {}

  async authenticate(secret: string | undefined, now = Date.now()): Promise<Principal> {
    if (!secret) throw new GatewayError('missing_token', 'Missing bearer token: send Authorization: Bearer <token>');
    const hash = hashToken(secret);
    let hit = this.cache.get(hash);
    if (!hit || now - hit.at > this.ttlMs) {
      hit = { record: await this.repo.findByHash(hash), at: now };
      if (this.cache.size >= this.maxEntries) this.cache.clear();
      this.cache.set(hash, hit);
    }
    const t = hit.record;
    if (!t) throw new GatewayError('invalid_token', 'Invalid token');
    if (t.revokedAt !== null) throw new GatewayError('token_revoked', 'Token has been revoked');
    if (t.expiresAt !== null && t.expiresAt <= now) throw new GatewayError('token_expired', 'Token has expired');
    return {
      tokenId: t.id,
      name: t.name,
      models: t.models,
      quota: t.quota,
      rpmLimit: t.rpmLimit,
      concurrencyLimit: t.concurrencyLimit,
    };
  }

  invalidateHash(hash: string): void {
    this.cache.delete(hash);
  }

  clear(): void {
    this.cache.clear();
  }
}

/** Extract the client credential: `Authorization: Bearer …` or `x-api-key` (the messages SDK). */
export function credentialFrom(headers: Record<string, string | string[] | undefined>): string | undefined {
  const auth = headers.authorization;
  const a = Array.isArray(auth) ? auth[0] : auth;
  const m = a ? /^Bearer\s+(\S.*)$/i.exec(a.trim()) : null;
  if (m) return m[1]!.trim();
  // No usable bearer (absent, or another scheme): the messages-style SDK sends x-api-key instead.
  const k = headers['x-api-key'];
  const key = Array.isArray(k) ? k[0] : k;
  return key?.trim() || undefined;
}
