// Account members and the portal's sign-in through the real server and store (run on both dialects): a member key is
// shown once and stored only hashed, rotated by the member (the old key refused at once), refused past its expiry;
// the portal cookie's flags; wrong keys counted to a lockout; a change without the CSRF token refused; bad input
// answers one error shape with the request id and changes nothing.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';

const t = useHarness();

type Key = { id: string; secret?: string; prefix: string; state: string; expires_at: number };
type Member = { id: string; account_id: string; email: string; key: Key };

let seq = 0;
async function newAccount(): Promise<string> {
  const r = await t.h.admin('/admin/accounts', { method: 'POST', json: { name: `Acct ${++seq}`, quota: 50_000_000 } });
  expect(r.status).toBe(201);
  return ((await r.json()) as { id: string }).id;
}

async function newMember(account: string, extra: Record<string, unknown> = {}): Promise<Member> {
  const r = await t.h.admin(`/admin/accounts/${account}/members`, {
    method: 'POST',
    json: { name: `Member ${++seq}`, email: `M${seq}@Customer.test`, ...extra },
  });
  expect(r.status).toBe(201);
  return (await r.json()) as Member;
}

async function signIn(key: string, headers: Record<string, string> = {}) {
  const res = await t.h.fetch('/portal/api/session', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ key }),
  });
  const set = res.headers.get('set-cookie') ?? '';
  const body = (await res.json()) as { csrf?: string; error?: { code: string; request_id: string } };
  return { res, set, cookie: set.split(';')[0]!, csrf: body.csrf ?? '', body };
}

const memberRows = (id: string) =>
  t.h.store.db.selectFrom('member_keys').selectAll().where('member_id', '=', id).execute();

describe('account members and the portal sign-in', () => {
  it('issues a member with a key shown once and stored only as its SHA-256', async () => {
    const account = await newAccount();
    const m = await newMember(account, { expires_in_days: 30 });
    expect(m.email).toBe(`m${seq}@customer.test`);
    expect(m.key.secret).toMatch(/^twm-[A-Za-z0-9]{43}$/);
    expect(m.key.expires_at - Date.now()).toBeGreaterThan(29 * 86_400_000);
    const rows = await memberRows(m.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.secret_hash).toBe(createHash('sha256').update(m.key.secret!).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(m.key.secret);
    for (const path of [`/admin/accounts/${account}/members`, `/admin/audit?target=${m.id}`]) {
      const text = await (await t.h.admin(path)).text();
      expect(text).toContain(m.id);
      expect(text).not.toContain(m.key.secret);
    }
    const s = await signIn(m.key.secret!);
    expect(s.res.status).toBe(201);
    expect(s.set).toMatch(/^tollway_portal=/);
    expect(s.set).toContain('HttpOnly');
    expect(s.set).toContain('SameSite=Strict');
    expect(s.set).toContain('Path=/portal');
    expect(s.set).not.toContain('tollway_console');
    // The portal session is not a console session: the admin API refuses it.
    expect((await t.h.fetch('/admin/tokens', { headers: { cookie: s.cookie } })).status).toBe(401);
    const me = await t.h.fetch('/portal/api/session', { headers: { cookie: s.cookie } });
    expect(((await me.json()) as { account: { id: string } }).account.id).toBe(account);
  });

  it('the member rotates their key: the new one is shown once, the old one refused at once', async () => {
    const m = await newMember(await newAccount());
    const s = await signIn(m.key.secret!);
    const post = (headers: Record<string, string>) =>
      t.h.fetch('/portal/api/key/rotate', { method: 'POST', headers: { cookie: s.cookie, ...headers } });
    expect((await post({})).status).toBe(403);
    const r = await post({ 'x-csrf-token': s.csrf });
    expect(r.status).toBe(200);
    const next = (await r.json()) as Key;
    expect(next.secret).toMatch(/^twm-/);
    expect((await signIn(m.key.secret!)).res.status).toBe(401);
    expect((await signIn(next.secret!)).res.status).toBe(201);
    // This session goes on with the new key.
    expect((await t.h.fetch('/portal/api/session', { headers: { cookie: s.cookie } })).status).toBe(200);
    const rows = await memberRows(m.id);
    expect(rows.map((k) => k.revoked_at === null).sort()).toEqual([false, true]);
    expect(JSON.stringify(rows)).not.toContain(next.secret);
  });

  it('refuses a key past its expiry, and ends its sessions', async () => {
    const m = await newMember(await newAccount());
    const s = await signIn(m.key.secret!);
    await t.h.store.db
      .updateTable('member_keys')
      .set({ expires_at: Date.now() - 1 })
      .where('id', '=', m.key.id)
      .execute();
    const again = await signIn(m.key.secret!);
    expect(again.res.status).toBe(401);
    expect(again.body.error!.code).toBe('token_expired');
    expect((await t.h.fetch('/portal/api/session', { headers: { cookie: s.cookie } })).status).toBe(401);
  });

  it('a revoked member can no longer sign in or act', async () => {
    const account = await newAccount();
    const m = await newMember(account);
    const s = await signIn(m.key.secret!);
    const r = await t.h.admin(`/admin/accounts/${account}/members/${m.id}`, { method: 'DELETE' });
    expect(r.status).toBe(200);
    expect((await signIn(m.key.secret!)).res.status).toBe(403);
    expect((await t.h.fetch(`/portal/api/accounts/${account}`, { headers: { cookie: s.cookie } })).status).toBe(401);
  });

  it('refuses bad input with one error shape and the request id, and changes nothing', async () => {
    const account = await newAccount();
    const before = await t.h.store.db.selectFrom('account_members').select('id').execute();
    const bad: unknown[] = [
      {},
      { name: 'x' },
      { name: 'x', email: 'not-an-email' },
      { name: 'x', email: 'a@b.test', role: 'owner' },
      { name: 'x', email: 'a@b.test', expires_in_days: 0 },
      [],
    ];
    for (const json of bad) {
      const r = await t.h.admin(`/admin/accounts/${account}/members`, { method: 'POST', json });
      expect(r.status).toBe(400);
      const e = ((await r.json()) as { error: { request_id: string; message: string } }).error;
      expect(e.request_id).toBe(r.headers.get('x-gateway-request-id'));
    }
    expect(
      (await t.h.admin('/admin/accounts/acct_nope/members', { method: 'POST', json: { name: 'x', email: 'a@b.test' } }))
        .status,
    ).toBe(404);
    expect((await t.h.admin(`/admin/accounts/${account}/members/mem_nope`, { method: 'DELETE' })).status).toBe(404);
    const m = await newMember(account);
    const dup = await t.h.admin(`/admin/accounts/${account}/members`, {
      method: 'POST',
      json: { name: 'y', email: m.email },
    });
    expect(dup.status).toBe(409);
    const after = await t.h.store.db.selectFrom('account_members').select('id').execute();
    expect(after.length).toBe(before.length + 1);
    const s = await signIn('');
    expect(s.res.status).toBe(400);
    expect(s.body.error!.request_id).toBe(s.res.headers.get('x-gateway-request-id'));
  });
  it('counts wrong member keys per address and locks it out', async () => {
    // Last: it locks this test's address out.
    const headers = {};
    for (let i = 0; i < 5; i++) expect((await signIn(`twm-wrong-${i}`, headers)).res.status).toBe(403);
    const locked = await signIn('twm-wrong-again', headers);
    expect(locked.res.status).toBe(429);
    expect(locked.res.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});
