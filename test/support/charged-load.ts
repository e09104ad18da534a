// Charged calls in a loop from a few concurrent clients (chat, streamed chat, images), for the crash tests: which
// calls were answered as a success (a whole stream for a stream), in which phase of the test, and which were cut.
import { request } from 'undici';

export interface LoadCall {
  rid: string;
  kind: 'chat' | 'stream' | 'image';
  /** Answered 200 with a whole body (a stream's [DONE] included). */
  ok: boolean;
  /** The test's phase when the answer completed (or when it was cut). */
  phase: number;
}

export interface ChargedLoad {
  readonly calls: LoadCall[];
  /** Calls answered as a success so far (of `kinds` only, when given). */
  answered(kinds?: readonly LoadCall['kind'][]): number;
  /** Calls answered as a success in `phase`. */
  answeredIn(phase: number, kinds?: readonly LoadCall['kind'][]): number;
  phase: number;
  /** Stop sending; resolves once every client's last call has ended (answered, failed or cut). */
  stop(): Promise<void>;
}

function bodyOf(kind: LoadCall['kind'], n: number): { path: string; json: unknown } {
  if (kind === 'image')
    return { path: '/v1/images/generations', json: { model: 'qwx-image-2.0', prompt: `crash load ${n}` } };
  return {
    path: '/v1/chat/completions',
    json: { model: 'qwx3.7-plus', stream: kind === 'stream', messages: [{ role: 'user', content: `crash load ${n}` }] },
  };
}

const of = (kinds: readonly LoadCall['kind'][] | undefined) => (c: LoadCall) =>
  c.ok && (kinds === undefined || kinds.includes(c.kind));

/** One loop of calls to `base` with `token` per client, each going round its own kinds, until stop(). */
export function chargedLoad(
  base: string,
  token: string,
  clients: ReadonlyArray<readonly LoadCall['kind'][]>,
): ChargedLoad {
  let stopping = false;
  let n = 0;
  const load: ChargedLoad = {
    calls: [],
    phase: 0,
    answered: (kinds) => load.calls.filter(of(kinds)).length,
    answeredIn: (phase, kinds) => load.calls.filter((c) => of(kinds)(c) && c.phase === phase).length,
    stop: async () => {
      stopping = true;
      await Promise.all(loops);
    },
  };
  const one = async (kind: LoadCall['kind']): Promise<void> => {
    const i = n++;
    const { path, json } = bodyOf(kind, i);
    let rid = '';
    try {
      const r = await request(`${base}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(json),
      });
      rid = String(r.headers['x-gateway-request-id'] ?? '');
      const text = await r.body.text();
      const whole = kind === 'stream' ? text.includes('data: [DONE]') : text.length > 0;
      load.calls.push({ rid, kind, ok: r.statusCode === 200 && whole, phase: load.phase });
    } catch {
      load.calls.push({ rid, kind, ok: false, phase: load.phase });
    }
  };
  const loops = clients.map(async (kinds) => {
    for (let i = 0; !stopping; i++) await one(kinds[i % kinds.length]!);
  });
  return load;
}
