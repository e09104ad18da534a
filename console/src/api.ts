// Calls to the gateway: the console's session API and the admin API, authenticated by the HttpOnly session cookie.
// A change carries the session's CSRF token; the admin key itself is never kept here.

import { ApiError, refusalOf } from './refusal.ts';
import type { Access, Area, Role } from './types.ts';

export { ApiError };

let csrf: string | null = null;
let onSignedOut: () => void = () => undefined;

export function whenSignedOut(f: () => void): void {
  onSignedOut = f;
}

export async function call<T>(path: string, init: { method?: string; json?: unknown } = {}): Promise<T> {
  const method = init.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json' };
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrf) headers['x-csrf-token'] = csrf;
  const res = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
  });
  if (res.status === 401 && !path.startsWith('/console/api/session')) {
    csrf = null;
    onSignedOut();
  }
  if (!res.ok) throw await refusalOf(res);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** Every row of a paged admin list: its pages followed by next_cursor, 1,000 rows at a time. */
export async function callAll<T>(path: string): Promise<T[]> {
  const rows: T[] = [];
  let cursor: string | undefined;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const page = await call<{ data: T[]; next_cursor?: string }>(
      `${path}${sep}limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    rows.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor !== undefined);
  return rows;
}

export interface SessionInfo {
  session_id: string;
  csrf: string;
  expires_at: number;
  /** The staff person signed in; null: the bootstrap admin key. */
  person: { id: string; name: string; email: string } | null;
  /** The personal key the session was opened with; null: single sign-on (or the bootstrap admin key's own id). */
  key_id: string | null;
  role: Role;
  /** What the role may do in each area: the console hides what it may not. */
  access: Record<Area, Access>;
}

/** Single sign-on (TOLLWAY_OIDC_*): whether it is on, and the issuer's name for the sign-in button. */
export type SsoInfo = { enabled: false } | { enabled: true; name: string; start_url: string };

export function ssoInfo(): Promise<SsoInfo> {
  return call<SsoInfo>('/console/sso');
}

/** A session single sign-on opened: a person, no key. */
export const bySso = (s: SessionInfo): boolean => s.person !== null && s.key_id === null;

/** The current session, or null when not signed in. */
export async function currentSession(): Promise<SessionInfo | null> {
  try {
    const s = await call<SessionInfo>('/console/api/session');
    csrf = s.csrf;
    return s;
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return null;
    throw e;
  }
}

export async function signIn(key: string): Promise<SessionInfo> {
  const s = await call<SessionInfo>('/console/api/session', { method: 'POST', json: { key } });
  csrf = s.csrf;
  return s;
}

export async function signOut(): Promise<void> {
  await call<void>('/console/api/session', { method: 'DELETE' });
  csrf = null;
}

/** A query string from the set fields. */
export function qs(params: Record<string, string | number | undefined | null>): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') u.set(k, String(v));
  const s = u.toString();
  return s ? `?${s}` : '';
}
