// A token's callback secret (the `whsec_…` its task callbacks are signed with), rotated by the operator (admin API,
// console and CLI alike). The new secret is shown only in the rotation's answer; the one it replaces keeps signing
// for a grace period, so the client can switch its receiver without refusing a callback.
import { newCallbackSecret } from '../../auth/callback-secret.ts';
import { rotateCallbackSecretBody } from './bodies/tokens.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { TokenRecord } from '../../store/repos/token-record.ts';
import { audit, type Actor, type AdminDeps } from './deps.ts';
import { getToken } from './tokens.ts';

/** An absent grace_ms takes the deployment's default (TOLLWAY_CALLBACK_SECRET_GRACE_MS). */
export function parseCallbackSecretRotate(body: unknown, defaultGraceMs: number): { graceMs: number } {
  return { graceMs: rotateCallbackSecretBody(body ?? {}).grace_ms ?? defaultGraceMs };
}

/**
 * A new callback secret for a token not revoked; the previous one signs too for `graceMs` more (0: it stops at once).
 */
export async function rotateCallbackSecret(
  deps: AdminDeps,
  by: Actor,
  id: string,
  opts: { graceMs: number },
  now = Date.now(),
): Promise<{ record: TokenRecord; callbackSecret: string }> {
  const t = await getToken(deps, id);
  if (t.revokedAt !== null) throw new GatewayError('conflict', `Token ${id} is revoked`);
  const callbackSecret = newCallbackSecret();
  const graceUntil = opts.graceMs > 0 ? now + opts.graceMs : null;
  if (!(await deps.repos.tokens.rotateCallbackSecret(id, deps.box.seal(callbackSecret), graceUntil, now)))
    throw new GatewayError('conflict', `Token ${id} is revoked`);
  // Nothing is cached: the next delivery reads the token's secrets. The audit line names no secret.
  await audit(deps, by, 'token.callback_secret.rotate', id, {
    grace_ms: opts.graceMs,
    previous_callback_secret_until: graceUntil,
  });
  return { record: await getToken(deps, id), callbackSecret };
}
