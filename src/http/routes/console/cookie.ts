// The console's session cookie: HttpOnly (scripts never read it), SameSite=Strict (no cross-site request carries
// it), Path=/ (the admin API at /admin reads it too), Secure when the console is reached over HTTPS.
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyRequest } from 'fastify';

export const SESSION_COOKIE = 'tollway_console';

export function sessionCookie(req: FastifyRequest): string | undefined {
  const h = req.headers.cookie;
  if (!h) return undefined;
  return parseCookie(h)[SESSION_COOKIE] || undefined;
}

/**
 * HTTPS as the browser sees it: TLS here, an https public URL, or X-Forwarded-Proto — read only from a proxy
 * TOLLWAY_TRUST_PROXY trusts (`fromTrustedProxy`), since any client can send the header.
 */
export function overHttps(req: FastifyRequest, publicUrl: string | undefined, fromTrustedProxy: boolean): boolean {
  if (req.protocol === 'https' || publicUrl?.startsWith('https:')) return true;
  const fwd = req.headers['x-forwarded-proto'];
  return fromTrustedProxy && typeof fwd === 'string' && fwd.split(',')[0]!.trim().toLowerCase() === 'https';
}

export function setCookieHeader(value: string, expiresAt: number, secure: boolean): string {
  return stringifySetCookie({
    name: SESSION_COOKIE,
    value,
    httpOnly: true,
    sameSite: 'strict',
    secure,
    path: '/',
    expires: new Date(expiresAt),
  });
}

export function clearCookieHeader(secure: boolean): string {
  return stringifySetCookie({
    name: SESSION_COOKIE,
    value: '',
    httpOnly: true,
    sameSite: 'strict',
    secure,
    path: '/',
    expires: new Date(0),
  });
}

/**
 * A browser's Origin, when sent, must be this server's own (a second check beside the CSRF token): the host it was
 * asked by, or the origin of TOLLWAY_PUBLIC_URL — behind a proxy that does not pass the Host on, that is the
 * address the browser knows.
 */
export function sameOrigin(req: FastifyRequest, publicUrl: string | undefined): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try {
    const o = new URL(origin);
    if (o.host === req.headers.host) return true;
    return publicUrl !== undefined && o.origin === new URL(publicUrl).origin;
  } catch {
    return false;
  }
}
