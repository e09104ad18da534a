import type { IncomingMessage } from 'node:http';
import { jwtVerify, errors as joseErrors } from 'jose';

export function bearerOf(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  const m = h ? /^Bearer\s+(.+)$/i.exec(h) : null;
  return m?.[1]?.trim();
}

/** DashScope: a static API key, as `Authorization: Bearer` (or `x-api-key` on the anthropic path). */
export function dashscopeAuthOk(req: IncomingMessage, apiKeys: readonly string[], allowXApiKey = false): boolean {
  const b = bearerOf(req);
  if (b !== undefined) return apiKeys.includes(b);
  const x = req.headers['x-api-key'];
  if (allowXApiKey && typeof x === 'string') return apiKeys.includes(x);
  return false;
}

/**
 * The simulated Alibaba Cloud account a DashScope request's key (Bearer, or x-api-key on the anthropic path) belongs
 * to.
 */
export function dashscopeAccountOf(req: IncomingMessage, extraKeys: Readonly<Record<string, string>>): string {
  const x = req.headers['x-api-key'];
  const key = bearerOf(req) ?? (typeof x === 'string' ? x : '');
  return extraKeys[key] ?? 'main';
}

export type KlingAuthResult = { ok: true } | { ok: false; code: 1001 | 1002 | 1003 | 1004; message: string };

/** Kling: an HS256 JWT signed with the secret key, iss = access key, with exp and nbf. */
export async function klingAuth(req: IncomingMessage, accessKey: string, secretKey: string): Promise<KlingAuthResult> {
  const token = bearerOf(req);
  if (!token) return { ok: false, code: 1001, message: 'Authorization is empty' };
  try {
    const { payload } = await jwtVerify(token, new TextEncoder().encode(secretKey), {
      algorithms: ['HS256'],
      clockTolerance: 0,
    });
    if (payload.iss !== accessKey) return { ok: false, code: 1002, message: 'Authorization is invalid' };
    if (typeof payload.exp !== 'number') return { ok: false, code: 1002, message: 'Authorization is invalid' };
    return { ok: true };
  } catch (e) {
    if (e instanceof joseErrors.JWTExpired) return { ok: false, code: 1004, message: 'Authorization is expired' };
    if (e instanceof joseErrors.JWTClaimValidationFailed && e.claim === 'nbf')
      return { ok: false, code: 1003, message: 'Authorization is not yet valid' };
    return { ok: false, code: 1002, message: 'Authorization is invalid' };
  }
}
