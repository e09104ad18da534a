// Kling auth: an HS256 JWT signed with the SecretKey, claims {iss: AccessKey, exp: now+1800, nbf: now-5}.
// Tokens are cached per key pair and re-signed a few minutes before they expire, so a request never
// goes out with a token that could lapse in flight.
import { createHash } from 'node:crypto';

export interface KlingJwtOptions {
  /** Token lifetime (s). The vendor's reference uses 1800. */
  ttlSec?: number;
  /** Re-sign when fewer than this many seconds of validity are left. */
  refreshMarginSec?: number;
  /** nbf back-dating for clock skew (s). */
  skewSec?: number;
  /** Clock in ms (tests). */
  now?: () => number;
}

interface Cached {
  token: string;
  exp: number; // seconds
}

export class KlingJwtSigner {
  private readonly cache = new Map<string, Cached>();
  private readonly inflight = new Map<string, Promise<Cached>>();
  private readonly ttl: number;
  private readonly margin: number;
  private readonly skew: number;
  private readonly now: () => number;

  constructor(opts: KlingJwtOptions = {}) {
    this.ttl = opts.ttlSec ?? 1800;
    this.margin = opts.refreshMarginSec ?? 300;
    this.skew = opts.skewSec ?? 5;
    this.now = opts.now ?? Date.now;
  }

  /** A valid bearer JWT for this key pair (cached). */
  async token(accessKey: string, secretKey: string): Promise<string> {
    // Keyed by a hash of both halves: a rotated secret gets a fresh token at once.
    const key = createHash('sha256').update(`${accessKey}\0${secretKey}`).digest('hex');
    const nowSec = Math.floor(this.now() / 1000);
    const hit = this.cache.get(key);
    if (hit && hit.exp - nowSec > this.margin) return hit.token;
    let p = this.inflight.get(key);
    if (!p) {
      p = this.sign(accessKey, secretKey, nowSec).finally(() => this.inflight.delete(key));
      this.inflight.set(key, p);
    }
    const fresh = await p;
    this.cache.set(key, fresh);
    return fresh.token;
  }

  private async sign(accessKey: string, secretKey: string, nowSec: number): Promise<Cached> {
    const exp = nowSec + this.ttl;
    // jose is loaded on the first Kling call only: a gateway without Kling traffic does not carry its memory.
    const { SignJWT } = await import('jose');
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(accessKey)
      .setExpirationTime(exp)
      .setNotBefore(nowSec - this.skew)
      .sign(new TextEncoder().encode(secretKey));
    // No registerSecret here: the redactor's JWT pattern already scrubs every token it would echo.
    return { token, exp };
  }
}
