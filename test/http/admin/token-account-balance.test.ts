// A token of no quota of its own in an account shows the account's balance (admin API and CLI): not "quota": null
// and unlimited for a token whose account is used up; what it may still spend is the least of both remainders.
import { beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { tollway } from '../../support/cli.ts';

const t = useHarness();

interface View {
  id: string;
  quota: number | null;
  remaining: number | null;
  account: { id: string; name: string; quota: number | null; spent: number; remaining: number | null } | null;
  effective_remaining: number | null;
}

async function post<T>(path: string, json: unknown): Promise<T> {
  const r = await t.h.admin(path, { method: 'POST', json });
  expect(r.status).toBeLessThan(300);
  return (await r.json()) as T;
}

let acc = '';
let inAcc: { id: string; token: string };
let capped: { id: string; token: string };
let loose: { id: string };

beforeAll(async () => {
  acc = (await post<{ id: string }>('/admin/accounts', { name: 'Drained', quota: 0 })).id;
  inAcc = await post('/admin/tokens', { name: 'drained-app', account_id: acc });
  capped = await post('/admin/tokens', { name: 'capped-app', account_id: acc, quota: 5_000 });
  loose = await post('/admin/tokens', { name: 'loose-app' });
});

describe('token views with the account', () => {
  it('GET, list: the account quota and what is left, and the effective remainder', async () => {
    const one = (await (await t.h.admin(`/admin/tokens/${inAcc.id}`)).json()) as View;
    expect(one.quota).toBeNull();
    expect(one.remaining).toBeNull();
    expect(one.account).toMatchObject({ id: acc, name: 'Drained', quota: 0, remaining: 0 });
    expect(one.effective_remaining).toBe(0);
    // The token really is refused: the view tells the truth.
    const r = await t.h.fetch('/v1/chat/completions', {
      method: 'POST',
      token: inAcc.token,
      json: { model: 'qwx3.7-plus', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(r.status).toBe(429);
    const list = (await (await t.h.admin('/admin/tokens?limit=100')).json()) as { data: View[] };
    const byId = new Map(list.data.map((v) => [v.id, v]));
    expect(byId.get(capped.id)).toMatchObject({ quota: 5_000, remaining: 5_000, effective_remaining: 0 });
    expect(byId.get(loose.id)).toMatchObject({
      quota: null,
      remaining: null,
      account: null,
      effective_remaining: null,
    });
  });

  it('tollway token list shows the same', async () => {
    const ran = await tollway(t.h, ['token', 'list', '--json', '--limit', '100']);
    expect(ran.code, ran.stderr).toBe(0);
    const out = JSON.parse(ran.stdout) as View[] | { data: View[] };
    const views = Array.isArray(out) ? out : out.data;
    expect(views.find((v) => v.id === inAcc.id)).toMatchObject({
      account: { id: acc, quota: 0, remaining: 0 },
      effective_remaining: 0,
    });
  });
});

describe('account names', () => {
  it('a second account of a name already taken is refused with 409, on create and on rename', async () => {
    const dup = await t.h.admin('/admin/accounts', { method: 'POST', json: { name: 'Drained' } });
    expect(dup.status).toBe(409);
    const err = ((await dup.json()) as { error: { message: string; param?: string } }).error;
    expect(err.message).toMatch(/^An account named Drained already exists; account names are unique/);
    const other = await post<{ id: string }>('/admin/accounts', { name: 'Second' });
    const rename = await t.h.admin(`/admin/accounts/${other.id}`, { method: 'PATCH', json: { name: 'Drained' } });
    expect(rename.status).toBe(409);
    // Its own name again is no conflict.
    expect((await t.h.admin(`/admin/accounts/${other.id}`, { method: 'PATCH', json: { name: 'Second' } })).status).toBe(
      200,
    );
  });
});
