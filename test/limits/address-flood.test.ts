// A flood of wrong admin keys from many source addresses (127.0.x.y, all loopback, each request's socket bound to
// its own) against the real server, with the address table shrunk by TOLLWAY_ADDRESS_TABLE_SIZE: a token's rpm
// window is untouched, a locked-out address stays locked, and once the table holds only locks the gateway
// refuses no right credential (admin key, console sign-in, metrics token) while wrong keys from a new address are
// refused as over the limit, and a trusted network is judged as usual — in memory, and in Redis when TEST_REDIS_URL is
// set.
import { request } from 'node:http';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.ts';

const redisUrl = process.env.TEST_REDIS_URL;
const TABLE = 20;

/** GET `path` from source address `from` with the bearer `key` (or POST `json` without one): the status. */
function getFrom(url: string, path: string, from: string, key: string | null, json?: unknown): Promise<number> {
  const u = new URL(path, url);
  const body = json === undefined ? undefined : JSON.stringify(json);
  const headers: Record<string, string> = key === null ? {} : { authorization: `Bearer ${key}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: body === undefined ? 'GET' : 'POST',
        localAddress: from,
        agent: false,
        headers,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const METRICS_TOKEN = 'flood-metrics-token-0123456789abcdef';
/** A network TOLLWAY_TRUST_PROXY lists: the operator's own. */
const TRUSTED = '127.0.203.1';

const addr = (i: number) => `127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`;

for (const mode of ['memory', 'redis'] as const) {
  describe.runIf(mode === 'memory' || redisUrl)(`address flood (${mode})`, () => {
    const t = useHarness({
      env: {
        TOLLWAY_ADDRESS_TABLE_SIZE: String(TABLE),
        TOLLWAY_TASK_POLLER: 'false',
        TOLLWAY_METRICS_TOKEN: METRICS_TOKEN,
        TOLLWAY_TRUST_PROXY: '127.0.203.0/24',
        ...(mode === 'redis' ? { REDIS_URL: redisUrl! } : {}),
      },
      // Its own Redis keys: a table full of locks must not refuse other test files' admin calls.
      configure: (c) => {
        c.limits.redisPrefix = `flood-${randomUUID()}:`;
      },
    });

    it('token windows survive, a lock holds, and a table full of locks refuses wrong keys but never the right ones', async () => {
      const url = t.h.url;
      const created = await t.h.admin('/admin/tokens', { method: 'POST', json: { name: 'limited', rpm_limit: 1 } });
      const token = ((await created.json()) as { token: string }).token;
      expect((await t.h.fetch('/v1/models', { token })).status).toBe(200);
      expect((await t.h.fetch('/v1/models', { token })).status).toBe(429);

      const victim = '127.0.200.1';
      for (let i = 0; i < 5; i++)
        expect(await getFrom(url, '/admin/tokens', victim, `wrong-${i}-xxxxxxxxxxxxxxxx`)).toBe(403);
      expect(await getFrom(url, '/admin/tokens', victim, t.h.adminKey)).toBe(429);

      // Ten tables' worth of addresses, one wrong key each: the oldest unlocked windows make room, nothing is cleared.
      const flood: number[] = [];
      for (let i = 0; i < TABLE * 10; i++)
        flood.push(await getFrom(url, '/admin/tokens', addr(i), 'wrong-flood-xxxxxxxxxxxxxxxx'));
      expect(flood.every((s) => s === 403)).toBe(true);
      expect((await t.h.fetch('/v1/models', { token })).status).toBe(429);
      expect(await getFrom(url, '/admin/tokens', victim, t.h.adminKey)).toBe(429);
      // An address that still has a place is judged as before.
      expect(await getFrom(url, '/admin/tokens', '127.0.201.1', t.h.adminKey)).toBe(200);

      // Lock the table's every place: a new address's wrong keys are refused as over the limit (there is no room to
      // count them) until a lock ends…
      for (let a = 0; a < TABLE; a++) {
        for (let i = 0; i < 5; i++)
          await getFrom(url, '/admin/tokens', addr(1000 + a), `wrong-lock-${i}-xxxxxxxxxxxxxxxx`);
      }
      const fresh = '127.0.202.1';
      expect(await getFrom(url, '/admin/tokens', fresh, 'wrong-fresh-xxxxxxxxxxxxxxxx')).toBe(429);
      expect(await getFrom(url, '/metrics', fresh, 'wrong-fresh-xxxxxxxxxxxxxxxx')).toBe(429);
      // …but the operator is not locked out: the right admin key, the console sign-in and the metrics token work.
      expect(await getFrom(url, '/admin/tokens', fresh, t.h.adminKey)).toBe(200);
      expect(await getFrom(url, '/console/api/session', '127.0.202.2', null, { key: t.h.adminKey })).toBe(201);
      expect(await getFrom(url, '/metrics', '127.0.202.3', METRICS_TOKEN)).toBe(200);
      // A trusted network is judged as usual: a wrong key is just wrong there.
      expect(await getFrom(url, '/admin/tokens', TRUSTED, 'wrong-trusted-xxxxxxxxxxxxxxxx')).toBe(403);
      expect(await getFrom(url, '/admin/tokens', TRUSTED, t.h.adminKey)).toBe(200);
      // An address that locked itself stays locked, right key or not.
      expect(await getFrom(url, '/admin/tokens', victim, t.h.adminKey)).toBe(429);
    });
  });
}
