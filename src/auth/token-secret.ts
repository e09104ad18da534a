import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function randomString(len: number): string {
  const bytes = randomBytes(len);
  let out = '';
  for (let i = 0; i < len; i++) out += ALPHABET[bytes[i]! % ALPHABET.length];
  return out;
}

/** A new client token secret: recognisable prefix + 43 random base62 chars (~256 bits). */
export function newTokenSecret(): string {
  return `tw-${randomString(43)}`;
}

/** Tokens are high-entropy, so a plain SHA-256 is a sound (and fast) stored hash. */
export function hashToken(secret: string): string {
  // One-shot crypto.hash: cheaper than createHash().update().digest() (no Hash object per request).
  return hash('sha256', secret, 'hex');
}

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

export function newId(prefix: string): string {
  return `${prefix}_${randomString(24)}`;
}
