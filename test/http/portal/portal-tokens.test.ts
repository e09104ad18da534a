// A member's tokens and credit through the portal API, on the real server and store (run on both dialects): a token
// is made within what the account allows (its secret shown once and working, its callback secret readable by the
// member), rotated (the old secret refused at once) and revoked; a credit code lands on the account once; the
// overview and usage show the account's balance, budgets and use by day and model.
import { beforeAll, describe, expect, it } from 'vitest';
import { postJson, useHarness } from '../../support/harness.ts';

const t = useHarness();
let account = '';
let cookie = '';
let csrf = '';
const base = () => `/portal/api/accounts/${account}`;
const call = (method: string, path: string, json?: unknown) =>
  t.h.fetch(path, { method, headers: { cookie, 'x-csrf-token': csrf }, ...(json !== undefined ? { json } : {}) });
const chat = (secret: string) =>
  postJson(t.h, secret, '/v1/chat/completions', { model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'hi' }] });

beforeAll(async () => {
  const expiresAt = Date.now() + 30 * 86_400_000;
  const a = await t.h.admin('/admin/accounts', {
    method: 'POST',
    json: { name: 'Acme', quota: 10_000_000, budgets: [{ period: 'day', limit: 5_000_000 }], expires_at: expiresAt },
  });
  account = ((await a.json()) as { id: string }).id;
  const m = await t.h.admin(`/admin/accounts/${account}/members`, {
    method: 'POST',
    json: { name: 'Ada', email: 'ada@acme.test' },
  });
  const key = ((await m.json()) as { key: { secret: string } }).key.secret;
  const s = await t.h.fetch('/portal/api/session', { method: 'POST', json: { key } });
  cookie = s.headers.get('set-cookie')!.split(';')[0]!;
  csrf = ((await s.json()) as { csrf: string }).csrf;
});

describe('portal tokens and credit', () => {
  it('creates a token within the account, shows its secrets once, rotates and revokes it', async () => {
    for (const json of [
      { name: 'too much', quota: 10_000_001 },
      { name: 'over budget', budgets: [{ period: 'day', limit: 5_000_001 }] },
      { name: 'too late', expires_at: Date.now() + 60 * 86_400_000 },
    ]) {
      const r = await call('POST', `${base()}/tokens`, json);
      expect(r.status, json.name).toBe(400);
    }
    const r = await call('POST', `${base()}/tokens`, { name: 'ci', quota: 2_000_000 });
    expect(r.status).toBe(201);
    const made = (await r.json()) as {
      id: string;
      token: string;
      callback_secret: string;
      account_id: string;
      expires_at: number;
    };
    expect(made.account_id).toBe(account);
    expect(made.expires_at).toBeGreaterThan(Date.now());
    expect((await chat(made.token)).status).toBe(200);
    // Never again: not in the list, not in the token's read.
    for (const path of [`${base()}/tokens`, `${base()}/tokens/${made.id}`, base()])
      expect(await (await call('GET', path)).text()).not.toContain(made.token);
    const cb = (await (await call('GET', `${base()}/tokens/${made.id}/callback-secret`)).json()) as {
      callback_secret: string;
    };
    expect(cb.callback_secret).toBe(made.callback_secret);

    const rot = await call('POST', `${base()}/tokens/${made.id}/rotate`);
    expect(rot.status).toBe(200);
    const next = ((await rot.json()) as { token: string }).token;
    expect(next).not.toBe(made.token);
    expect((await chat(made.token)).status).toBe(401);
    expect((await chat(next)).status).toBe(200);

    expect((await call('DELETE', `${base()}/tokens/${made.id}`)).status).toBe(200);
    expect((await chat(next)).status).toBe(401);
    const audit = (await (await t.h.admin(`/admin/audit?target=${made.id}`)).json()) as {
      data: Array<{ actor: string }>;
    };
    expect(audit.data.length).toBeGreaterThanOrEqual(3);
    for (const line of audit.data) expect(line.actor).toMatch(/^member:mem_/);
  });

  it('shows usage by day and model, balance and budgets', async () => {
    const r = await call('POST', `${base()}/tokens`, { name: 'usage' });
    const made = (await r.json()) as { token: string };
    expect((await chat(made.token)).status).toBe(200);
    const usage = (await (await call('GET', `${base()}/usage?days=7`)).json()) as {
      data: Array<{ day: string; models: Record<string, { requests: number; amount: number }> }>;
    };
    expect(usage.data).toHaveLength(7);
    const today = usage.data.at(-1)!;
    expect(today.day).toBe(new Date().toISOString().slice(0, 10));
    expect(today.models['qwx3.7-plus']!.requests).toBeGreaterThanOrEqual(1);
    const over = (await (await call('GET', base())).json()) as {
      account: { remaining: number };
      budgets: Array<{ period: string; remaining: number }>;
      tokens: Array<{ name: string; remaining: number | null }>;
    };
    expect(over.account.remaining).toBeLessThan(10_000_000);
    expect(over.budgets.map((b) => b.period)).toEqual(['day']);
    expect(over.tokens.map((x) => x.name)).toEqual(expect.arrayContaining(['ci', 'usage']));
  });

  it('redeems a code for the account once', async () => {
    const b = await t.h.admin('/admin/credit/batches', {
      method: 'POST',
      json: { count: 1, amount: 3_000_000, expires_at: Date.now() + 3_600_000 },
    });
    const [code] = ((await b.json()) as { codes: string[] }).codes;
    const before = ((await (await t.h.admin(`/admin/accounts/${account}`)).json()) as { quota: number }).quota;
    const r = await call('POST', `${base()}/redeem`, { code });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ holder_kind: 'account', holder_id: account, amount: 3_000_000 });
    expect((await call('POST', `${base()}/redeem`, { code })).status).toBe(200);
    const after = ((await (await t.h.admin(`/admin/accounts/${account}`)).json()) as { quota: number }).quota;
    expect(after).toBe(before + 3_000_000);
  });
});
