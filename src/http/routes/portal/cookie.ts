// The portal's session cookie, apart from the console's: HttpOnly (scripts never read it), SameSite=Strict (no
// cross-site request carries it), Path=/portal (only the portal reads it), Secure when reached over HTTPS.
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyRequest } from 'fastify';

export const PORTAL_COOKIE = 'tollway_portal';

export function portalCookie(req: FastifyRequest): string | undefined {
  const h = req.headers.cookie;
  if (!h) return undefined;
  return parseCookie(h)[PORTAL_COOKIE] || undefined;
}

export function setPortalCookie(value: string, expiresAt: number, secure: boolean): string {
  return stringifySetCookie({
    name: PORTAL_COOKIE,
    value,
    httpOnly: true,
    sameSite: 'strict',
    secure,
    path: '/portal',
    expires: new Date(expiresAt),
  });
}

export const clearPortalCookie = (secure: boolean): string => setPortalCookie('', 0, secure);
