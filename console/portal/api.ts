// Calls to the portal API, authenticated by the HttpOnly portal session cookie. A change carries the session's CSRF
// token; the member key itself is never kept here.

import { ApiError, refusalOf } from '../src/refusal.ts';

let csrf: string | null = null;
let onSignedOut: () => void = () => undefined;

export { ApiError };

export function whenSignedOut(f: () => void): void {
  onSignedOut = f;
}

export async function call<T>(path: string, init: { method?: string; json?: unknown } = {}): Promise<T> {
  const method = init.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json' };
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrf) headers['x-csrf-token'] = csrf;
  const res = await fetch(`/portal/api${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
  });
  if (res.status === 401 && !path.startsWith('/session')) {
    csrf = null;
    onSignedOut();
  }
  if (!res.ok) throw await refusalOf(res);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

export interface PortalSession {
  csrf: string;
  expires_at: number;
  member: { id: string; name: string; email: string };
  account: { id: string; name: string };
  key: { id: string; prefix: string; expires_at: number } | null;
}

export async function currentSession(): Promise<PortalSession | null> {
  try {
    const s = await call<PortalSession>('/session');
    csrf = s.csrf;
    return s;
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return null;
    throw e;
  }
}

export async function signIn(key: string): Promise<PortalSession> {
  const s = await call<PortalSession>('/session', { method: 'POST', json: { key } });
  csrf = s.csrf;
  return s;
}

export async function signOut(): Promise<void> {
  await call<void>('/session', { method: 'DELETE' });
  csrf = null;
}

/** A path of the signed-in member's account. */
export const acct = (s: PortalSession, path = ''): string => `/accounts/${encodeURIComponent(s.account.id)}${path}`;
