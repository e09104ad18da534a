// Calls to a simulator as its own tests make them: DashScope compatible-mode chat with the default key, and Kling
// calls signed with a JWT of the given claims.
import { SignJWT } from 'jose';
import { DEFAULT_SIM_KEYS, type Simulator } from '../../simulator/index.ts';

export const DS = DEFAULT_SIM_KEYS.dashscopeApiKey;
const secret = new TextEncoder().encode(DEFAULT_SIM_KEYS.klingSecretKey);

/** Seconds since the epoch (JWT times). */
export const now = () => Math.floor(Date.now() / 1000);

export const jwt = (claims: { iss?: string; exp?: number; nbf?: number }, key: Uint8Array = secret) => {
  let j = new SignJWT({}).setProtectedHeader({ alg: 'HS256', typ: 'JWT' });
  if (claims.iss !== undefined) j = j.setIssuer(claims.iss);
  if (claims.exp !== undefined) j = j.setExpirationTime(claims.exp);
  if (claims.nbf !== undefined) j = j.setNotBefore(claims.nbf);
  return j.sign(key);
};

export const chatBody = (content = 'hello', extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model: 'qwen3.7-plus', messages: [{ role: 'user', content }], ...extra });

/** The calls, on the simulator `s` holds (read when called: it starts before the tests). */
export function simCalls(s: { readonly sim: Simulator }) {
  function post(path: string, body: string, key: string | null = DS, init: RequestInit = {}) {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (key !== null) headers.authorization = `Bearer ${key}`;
    return fetch(s.sim.url + path, { method: 'POST', body, headers, ...init });
  }
  const chat = (content = 'hello', extra: Record<string, unknown> = {}, init: RequestInit = {}) =>
    post('/compatible-mode/v1/chat/completions', chatBody(content, extra), DS, init);
  const kling = (token: string | null) =>
    fetch(`${s.sim.url}/v1/videos/text2video?pageNum=1&pageSize=10`, {
      headers: token === null ? {} : { authorization: `Bearer ${token}` },
    });
  return { post, chat, kling };
}
