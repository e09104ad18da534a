// Portal isolation through the real server and store (run on both dialects): account A's member calls every portal
// API route of the route table with account B's ids (B's account, and B's token under A's account) and gets 404 each
// time, and nothing of B changes. The routes come from the route table: a new portal route must name its account
// (`:account`) or be listed here as one that names none, else this test fails. Bad input on every portal change
// answers a 4xx in one error shape with the request id.
import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../../src/http/front/route-table.ts';
import { postJson, useHarness } from '../../support/harness.ts';

const t = useHarness();

/** The member rows that name no account: the member's own session and key. */
const ACCOUNT_FREE = new Set(['POST /portal/api/key/rotate']);
const memberRows = ROUTES.filter((r) => r.auth === 'member');

interface Side {
  account: string;
  token: string;
  secret: string;
  member: { key: { secret: string } };
}

async function side(name: string): Promise<Side> {
  const a = await t.h.admin('/admin/accounts', { method: 'POST', json: { name, quota: 90_000_000 } });
  const account = ((await a.json()) as { id: string }).id;
  const tk = await t.h.admin('/admin/tokens', { method: 'POST', json: { name: `${name} token`, account_id: account } });
  const { id: token, token: secret } = (await tk.json()) as { id: string; token: string };
  const m = await t.h.admin(`/admin/accounts/${account}/members`, {
    method: 'POST',
    json: { name: `${name} member`, email: `member@${name}.test` },
  });
  return { account, token, secret, member: (await m.json()) as Side['member'] };
}

let A: Side;
let B: Side;
let cookie = '';
let csrf = '';

beforeAll(async () => {
  A = await side('alpha');
  B = await side('beta');
  const res = await t.h.fetch('/portal/api/session', { method: 'POST', json: { key: A.member.key.secret } });
  expect(res.status).toBe(201);
  cookie = res.headers.get('set-cookie')!.split(';')[0]!;
  csrf = ((await res.json()) as { csrf: string }).csrf;
});

const call = (method: string, path: string, json?: unknown) =>
  t.h.fetch(path, {
    method,
    headers: { cookie, 'x-csrf-token': csrf },
    ...(json !== undefined ? { json } : {}),
  });

const fill = (path: string, ids: { account: string; token: string }) =>
  path.replace(':account', ids.account).replace(':token', ids.token);

/** A body each change accepts when the ids are its own. */
const BODY: Record<string, unknown> = { name: 'x', code: 'twc_000000000000000000000000' };

async function snapshotOfB() {
  const db = t.h.store.db;
  return JSON.stringify([
    await db.selectFrom('tokens').selectAll().where('account_id', '=', B.account).execute(),
    await db.selectFrom('accounts').selectAll().where('id', '=', B.account).execute(),
    await db.selectFrom('account_members').selectAll().where('account_id', '=', B.account).execute(),
  ]);
}

describe('portal isolation', () => {
  it('every member route names its account, or is known to name none', () => {
    expect(memberRows.length).toBeGreaterThan(8);
    for (const r of memberRows)
      expect(r.path.includes(':account') || ACCOUNT_FREE.has(`${r.method} ${r.path}`), `${r.method} ${r.path}`).toBe(
        true,
      );
  });

  it("answers 404 to every portal route called with the other account's ids, and changes nothing of it", async () => {
    const before = await snapshotOfB();
    let tried = 0;
    for (const r of memberRows.filter((x) => x.path.includes(':account'))) {
      const body = r.method === 'POST' ? BODY : undefined;
      const asks = [fill(r.path, B)];
      if (r.path.includes(':token')) asks.push(fill(r.path, { account: A.account, token: B.token }));
      for (const path of asks) {
        const res = await call(r.method, path, body);
        expect(res.status, `${r.method} ${path}`).toBe(404);
        const e = ((await res.json()) as { error: { request_id: string } }).error;
        expect(e.request_id).toBe(res.headers.get('x-gateway-request-id'));
        tried++;
      }
    }
    expect(tried).toBeGreaterThan(10);
    expect(await snapshotOfB()).toBe(before);
    // The member's own account answers (the 404s were not for want of a session).
    expect((await call('GET', `/portal/api/accounts/${A.account}`)).status).toBe(200);
    expect((await call('GET', `/portal/api/accounts/${A.account}/tokens/${A.token}`)).status).toBe(200);
  });

  it("the request log and bills show only the member's own tokens, without upstream details", async () => {
    for (const s of [A, B]) {
      const r = await postJson(t.h, s.secret, '/v1/chat/completions', {
        model: 'qwx3.7-plus',
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(r.status).toBe(200);
    }
    const all = (await (await t.h.admin('/admin/logs')).json()) as { data: Array<{ token_id: string }> };
    expect(all.data.map((r) => r.token_id)).toEqual(expect.arrayContaining([A.token, B.token]));
    const logs = await call('GET', `/portal/api/accounts/${A.account}/logs`);
    expect(logs.status).toBe(200);
    const page = (await logs.json()) as { data: Array<{ token_id: string }> };
    expect(page.data.map((r) => r.token_id)).toEqual([A.token]);
    const text = JSON.stringify(page);
    expect(text).not.toContain(B.token);
    expect(text).not.toContain('attempts');
    expect(text).not.toContain('channel_id');
    expect(text).not.toContain('upstream_request_id');
    const bill = await call('GET', `/portal/api/accounts/${A.account}/bills?period=day&format=csv`);
    expect(bill.status).toBe(200);
    expect(bill.headers.get('content-type')).toContain('text/csv');
    const csv = await bill.text();
    expect(csv).toContain(A.token);
    expect(csv).not.toContain(B.token);
  });

  it('bad input on every portal change: one error shape with the request id, nothing changed', async () => {
    const tokensBefore = await t.h.store.db.selectFrom('tokens').select('id').execute();
    const base = `/portal/api/accounts/${A.account}`;
    const cases: Array<[string, string, unknown]> = [
      ['POST', `${base}/tokens`, {}],
      ['POST', `${base}/tokens`, { name: 'x', account_id: B.account }],
      ['POST', `${base}/tokens`, { name: 'x', quota: 90_000_001 }],
      ['POST', `${base}/tokens`, { name: 'x', quota: -1 }],
      ['POST', `${base}/tokens`, { name: 'x', models: ['no-such-model'] }],
      ['POST', `${base}/redeem`, {}],
      ['POST', `${base}/redeem`, { code: 'x', more: 1 }],
      ['POST', '/portal/api/key/rotate', { expires_in_days: 0 }],
      ['GET', `${base}/usage?days=0`, undefined],
      ['GET', `${base}/bills?period=year`, undefined],
      ['GET', `${base}/logs?limit=0`, undefined],
      ['GET', `${base}?what=1`, undefined],
    ];
    for (const [method, path, json] of cases) {
      const res = await call(method, path, json);
      expect(res.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${method} ${path}`).toBeLessThan(500);
      const e = ((await res.json()) as { error: { request_id: string; message: string } }).error;
      expect(e.request_id).toBe(res.headers.get('x-gateway-request-id'));
      expect(e.message.length).toBeGreaterThan(5);
    }
    expect(await t.h.store.db.selectFrom('tokens').select('id').execute()).toEqual(tokensBefore);
  });
});
