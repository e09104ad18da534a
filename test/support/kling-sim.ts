// Calls to the simulator's Kling API as its own tests make them: signed with the default keys, answered in Kling's
// envelope; `until` polls a task until it reaches a status.
import { DEFAULT_SIM_KEYS, type Simulator } from '../../simulator/index.ts';
import { KlingJwtSigner } from '../../src/adapters/kling/jwt.ts';

const signer = new KlingJwtSigner();
export const klingJwt = () => signer.token(DEFAULT_SIM_KEYS.klingAccessKey, DEFAULT_SIM_KEYS.klingSecretKey);

/** Kling's answer envelope. */
export interface KlingEnvelope {
  code: number;
  message: string;
  request_id: string;
  data?: Record<string, unknown> & { task_id?: string; task_status?: string; session_id?: string };
}

/** The calls, on the simulator `s` holds (read when called: it starts before the tests). */
export function klingCalls(s: { readonly sim: Simulator }) {
  async function call(
    method: string,
    path: string,
    body?: unknown,
    token?: string,
  ): Promise<{ status: number; body: KlingEnvelope }> {
    const headers: Record<string, string> = { authorization: `Bearer ${token ?? (await klingJwt())}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const r = await fetch(s.sim.url + path, {
      method,
      headers,
      body: body === undefined ? null : JSON.stringify(body),
    });
    return { status: r.status, body: (await r.json()) as KlingEnvelope };
  }

  async function until(path: string, status: string): Promise<KlingEnvelope> {
    for (let i = 0; i < 100; i++) {
      const r = await call('GET', path);
      if (r.body.data?.task_status === status) return r.body;
      await new Promise((res) => setTimeout(res, 30));
    }
    throw new Error(`never reached ${status}`);
  }
  return { call, until };
}
