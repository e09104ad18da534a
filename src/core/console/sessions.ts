// Operator console sign-in: the admin key is exchanged for a session whose secret lives only in an HttpOnly cookie
// (and, hashed, in the store). Wrong admin keys — at the sign-in and as an admin API bearer alike — are counted per
// client address and refused for a while after a few.
import { createHmac } from 'node:crypto';
import { safeEqual } from '../../auth/token-secret.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { RateLimiter } from '../../limits/rate-limiter.ts';
import type { ConsoleSession, ConsoleSessionsRepo } from '../../store/repos/console-sessions.ts';
import type { StaffRepo } from '../../store/repos/staff.ts';
import { looksLikeStaffKey, staffOfKey, staffOfSession } from '../staff/keys.ts';
import { newSession, storeSession } from '../session-open.ts';
import { SignInLockout } from '../sign-in-lockout.ts';
import { BOOTSTRAP, type Staff } from '../staff/roles.ts';

export interface ConsoleDeps {
  readonly adminKey: string;
  /** Is this a live client token? Presented where the admin key goes, it is a wrong route, not a guess: not counted. */
  readonly isClientToken: (key: string) => Promise<boolean>;
  readonly sessions: ConsoleSessionsRepo;
  /** Staff people and their personal keys: a personal key signs in as its person, in their role. */
  readonly staff: StaffRepo;
  readonly limiter: Pick<RateLimiter, 'countEvent' | 'events'>;
  /**
   * Is the client address in a network TOLLWAY_TRUST_PROXY trusts? It is never refused for want of room to count it.
   */
  readonly trusted: (client: string) => boolean;
  readonly sessionMs: number;
}

export interface SignedIn {
  /** The cookie's value: shown to the browser once, stored only hashed. */
  secret: string;
  session: ConsoleSession;
}

const lockout = new SignInLockout('console', 'admin keys');

/** What checking a presented admin key needs: built once (compose.ts) for every route that takes the key. */
export type AdminKeyDeps = Pick<ConsoleDeps, 'adminKey' | 'limiter' | 'isClientToken' | 'trusted'>;

/**
 * The one check of a presented admin key (console sign-in, admin API bearer, metrics scrape): refused without a look
 * once its address has sent too many wrong keys lately (429), and a wrong key is counted — so guessing through the
 * admin API is held to the sign-in's pace. `what` names the credential in the refusal; `alsoAccepted` is a second
 * credential the route takes (the metrics token), under the same lockout and count.
 */
export async function checkAdminKey(
  deps: AdminKeyDeps,
  key: string,
  client: string,
  what = 'the admin key (TOLLWAY_ADMIN_KEY)',
  alsoAccepted?: string,
): Promise<void> {
  const seen = await lockout.check(deps, client);
  // Another credential taken in the same place (the metrics token) is compared only here, after the lockout: a
  // locked-out address learns nothing about it either.
  if (safeEqual(key, deps.adminKey) || (alsoAccepted !== undefined && safeEqual(key, alsoAccepted))) return;
  // A client's own token sent to an admin route is refused, but it guesses nothing: counting it would let a tenant
  // lock its address (and an operator behind the same one) out of the admin API.
  await lockout.wrong(deps, client, seen, !(await deps.isClientToken(key)));
  throw new GatewayError('permission_denied', `That is not ${what}`);
}

/** What checking a presented admin or staff key needs. */
export type StaffKeyDeps = AdminKeyDeps & Pick<ConsoleDeps, 'staff'>;

/**
 * The one check of a key presented to the admin API or the console sign-in: a personal staff key (its person, in
 * their role), else the bootstrap admin key (an owner). A wrong key of either kind is counted against its address
 * like a wrong admin key; a revoked or expired staff key, or one of a disabled person, is refused as such (401/403),
 * not counted — it guesses nothing.
 */
export async function checkStaffKey(deps: StaffKeyDeps, key: string, client: string): Promise<Staff> {
  if (!looksLikeStaffKey(key)) {
    await checkAdminKey(deps, key, client, 'the admin key (TOLLWAY_ADMIN_KEY) or a staff key');
    return BOOTSTRAP;
  }
  const seen = await lockout.check(deps, client);
  const staff = await staffOfKey(deps.staff, key);
  if (staff) return staff;
  await lockout.wrong(deps, client, seen);
  throw new GatewayError('permission_denied', 'That is not the admin key (TOLLWAY_ADMIN_KEY) or a staff key');
}

/**
 * The staff a live console session stands for, read afresh (a role change, a disabled person or a revoked key
 * applies at once): the bootstrap owner for a session the admin key opened; null when its person may no longer act.
 */
export function staffOfConsole(deps: Pick<ConsoleDeps, 'staff'>, s: ConsoleSession): Promise<Staff | null> {
  return s.personId === null ? Promise.resolve(BOOTSTRAP) : staffOfSession(deps.staff, s);
}

/** ConsoleDeps' isClientToken, from the gateway's token authentication (a revoked or expired token is not live). */
export function clientTokenCheck(auth: {
  authenticate(secret: string | undefined): Promise<unknown>;
}): (key: string) => Promise<boolean> {
  return (key) =>
    auth.authenticate(key).then(
      () => true,
      () => false,
    );
}

/**
 * How a session's secret is stored and looked up: keyed by the admin key that opened it, so a new TOLLWAY_ADMIN_KEY
 * (the answer to a leaked one) ends every session the old key opened, on every instance, with nothing to revoke.
 */
function sessionHash(adminKey: string, secret: string): string {
  return createHmac('sha256', adminKey).update(secret).digest('hex');
}

/**
 * Exchange the admin key or a personal staff key for a session (naming the person and key), or refuse: a wrong key
 * (counted), a dead staff key, or too many wrong keys lately (429).
 */
export async function signIn(deps: ConsoleDeps, key: unknown, client: string, now = Date.now()): Promise<SignedIn> {
  if (typeof key !== 'string' || key.length === 0) {
    await lockout.check(deps, client);
    throw new GatewayError('missing_parameter', 'Enter the admin key or your staff key', { param: 'key' });
  }
  const staff = await checkStaffKey(deps, key.trim(), client);
  return openSession(deps, staff, client, now);
}

/** A new session for `staff`, however they proved who they are (a key, single sign-on). */
export async function openSession(
  deps: Pick<ConsoleDeps, 'sessions' | 'adminKey' | 'sessionMs'>,
  staff: Staff,
  client: string,
  now = Date.now(),
): Promise<SignedIn> {
  const { secret, base } = newSession('csn', client, now, deps.sessionMs);
  const session: ConsoleSession = {
    ...base,
    personId: staff.personId,
    keyId: staff.personId === null ? null : staff.keyId,
  };
  await storeSession(deps.sessions, session, sessionHash(deps.adminKey, secret), now);
  return { secret, session };
}

/** The live session a cookie's secret names (opened with the current admin key), or null. */
export function sessionOf(
  deps: Pick<ConsoleDeps, 'sessions' | 'adminKey'>,
  secret: string | undefined,
): Promise<ConsoleSession | null> {
  if (!secret) return Promise.resolve(null);
  return deps.sessions.findLive(sessionHash(deps.adminKey, secret));
}

/** Sign out: the session is revoked in the store, so no instance accepts its cookie any more. */
export async function signOut(
  deps: Pick<ConsoleDeps, 'sessions' | 'adminKey'>,
  secret: string | undefined,
): Promise<void> {
  if (secret) await deps.sessions.revoke(sessionHash(deps.adminKey, secret));
}
