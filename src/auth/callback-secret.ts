// Client callback secrets in the Standard Webhooks form (https://www.standardwebhooks.com): `whsec_` + the base64 of
// random bytes. The HMAC key is the decoded bytes, not the string, so any Standard Webhooks library verifies with
// the secret exactly as shown to the token's holder.
import { createHmac, randomBytes } from 'node:crypto';

export const CALLBACK_SECRET_PREFIX = 'whsec_';

/** 256 bits, inside the 24–64 bytes the specification asks for. */
const KEY_BYTES = 32;

export function newCallbackSecret(): string {
  return `${CALLBACK_SECRET_PREFIX}${randomBytes(KEY_BYTES).toString('base64')}`;
}

/** The HMAC key of a `whsec_…` secret. */
function keyOf(secret: string): Buffer {
  if (!secret.startsWith(CALLBACK_SECRET_PREFIX)) throw new Error('not a whsec_ callback secret');
  return Buffer.from(secret.slice(CALLBACK_SECRET_PREFIX.length), 'base64');
}

/**
 * The `webhook-signature` header: `v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>` for each secret,
 * space-separated (during a rotation the new secret's first, then the previous one's), so a receiver holding
 * either verifies.
 */
export function signCallback(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets
    .map((s) => `v1,${createHmac('sha256', keyOf(s)).update(`${id}.${timestamp}.${body}`).digest('base64')}`)
    .join(' ');
}
