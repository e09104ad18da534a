// Opening a session, the console's and the portal's alike: a secret for the cookie (shown to the browser once, stored
// only hashed), a CSRF token, and the row stored.
import { newId, randomString } from '../auth/token-secret.ts';
import type { SessionTimes } from '../store/repos/session-rows.ts';

export interface SessionBase extends SessionTimes {
  id: string;
  csrf: string;
}

interface SessionStore<S> {
  create(s: S & { secretHash: string }): Promise<void>;
  purge(before: number): Promise<number>;
}

/** A new session's secret and the fields every session has; `idPrefix` names its kind in ids (`csn`, `psn`). */
export function newSession(idPrefix: string, client: string, now: number, sessionMs: number) {
  const base: SessionBase = {
    id: newId(idPrefix),
    csrf: randomString(32),
    client: client.slice(0, 100),
    createdAt: now,
    expiresAt: now + sessionMs,
  };
  return { secret: randomString(43), base };
}

/** Store a new session under its secret's hash. */
export async function storeSession<S>(store: SessionStore<S>, session: S, secretHash: string, now: number) {
  await store.create({ ...session, secretHash });
  // Sign-ins are rare: a good moment to forget sessions that ended more than a day ago.
  await store.purge(now - 86_400_000);
}
