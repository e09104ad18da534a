// Personal admin keys: made, found by their hash, and judged live or not. A key is shown once, when it is made; the
// store keeps only its SHA-256.
import { hashToken, newId, randomString } from '../../auth/token-secret.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { PersonRecord, StaffKeyRecord, StaffRepo } from '../../store/repos/staff.ts';
import { isRole, type Staff } from './roles.ts';

/** Staff keys look unlike client tokens (`tw-`), so a key pasted in the wrong place is recognised. */
export const STAFF_KEY_PREFIX = 'tws-';
export const DAY_MS = 86_400_000;
export const DEFAULT_KEY_DAYS = 90;
export const MAX_KEY_DAYS = 3650;

export interface NewKey {
  record: StaffKeyRecord;
  secretHash: string;
  /** Shown once, in the answer that made it. */
  secret: string;
}

export function makeKey(personId: string, name: string | null, days: number, now = Date.now()): NewKey {
  const secret = `${STAFF_KEY_PREFIX}${randomString(43)}`;
  return {
    secret,
    secretHash: hashToken(secret),
    record: {
      id: newId('skey'),
      personId,
      name,
      prefix: secret.slice(0, 10),
      expiresAt: now + days * DAY_MS,
      revokedAt: null,
      createdAt: now,
    },
  };
}

export const looksLikeStaffKey = (key: string): boolean => key.startsWith(STAFF_KEY_PREFIX);

/** Why a key or person cannot act now, or null when both are live. */
export function refusal(person: PersonRecord, key: StaffKeyRecord | null, now: number): GatewayError | null {
  if (person.disabledAt !== null)
    return new GatewayError('permission_denied', `The staff person ${person.id} is disabled`);
  if (!isRole(person.role)) return new GatewayError('permission_denied', `The staff person ${person.id} has no role`);
  if (key?.revokedAt != null)
    return new GatewayError('token_revoked', `The staff key ${key.prefix}… was revoked or rotated`);
  if (key && key.expiresAt <= now)
    return new GatewayError('token_expired', `The staff key ${key.prefix}… expired; ask an owner for a new one`);
  return null;
}

/**
 * The staff behind a personal key: null when no key has this secret (a wrong key, which the caller counts as a
 * guess); a clear refusal when the key is revoked or expired, or its person disabled.
 */
export async function staffOfKey(staff: StaffRepo, key: string, now = Date.now()): Promise<Staff | null> {
  const found = await staff.byHash(hashToken(key));
  if (!found) return null;
  const refused = refusal(found.person, found.key, now);
  if (refused) throw refused;
  return { role: found.person.role as Staff['role'], personId: found.person.id, keyId: found.key.id };
}

/**
 * The staff a console session stands for, read afresh at each request so a role change, a disabled person or a
 * revoked key applies at once: null when the person or key no longer may act.
 */
export async function staffOfSession(
  staff: StaffRepo,
  s: { personId: string | null; keyId: string | null },
  now = Date.now(),
): Promise<Staff | null> {
  if (s.personId === null) return null;
  const person = await staff.person(s.personId);
  if (!person) return null;
  const key = s.keyId === null ? null : await staff.key(s.personId, s.keyId);
  if (s.keyId !== null && !key) return null;
  if (refusal(person, key, now)) return null;
  return { role: person.role as Staff['role'], personId: person.id, keyId: s.keyId };
}
