// The operator console's sign-in and how the admin API accepts its session: cookie attributes, the session stored
// server-side (sign-out revokes it on every instance), CSRF and Origin checks on changes, the audit line's actor,
// the headers on console answers, and wrong keys rate-limited per address.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';

const t = useHarness();

async function signIn(base = t.h.url, key = t.h.adminKey): Promise<{ res: Response; cookie: string; csrf: string }> {
  const res = await fetch(`${base}/console/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key }),
  });
  const set = res.headers.get('set-cookie') ?? '';
  const body = (res.status === 201 ? await res.json() : {}) as { csrf?: string };
  return { res, cookie: set.split(';')[0]!, csrf: body.csrf ?? '' };
}

const withCookie = (cookie: string, extra: Record<string, string> = {}) => ({ cookie, ...extra });

describe('console session behind a proxy that does not pass the Host on', () => {
  it("the origin of TOLLWAY_PUBLIC_URL is this server's own: sign-in and changes from it pass, another origin is refused", async () => {
    const behind = await t.h.instance({ publicUrl: 'https://gw.example.com/' });
    const post = (path: string, headers: Record<string, string>, body: unknown) =>
      fetch(`${behind.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    expect((await post('/console/api/session', { origin: 'https://evil.example' }, { key: t.h.adminKey })).status).toBe(
      403,
    );
    expect(
      (await post('/console/api/session', { origin: 'https://gw.example.com:8443' }, { key: t.h.adminKey })).status,
    ).toBe(403);
    const res = await post('/console/api/session', { origin: 'https://gw.example.com' }, { key: t.h.adminKey });
    expect(res.status).toBe(201);
    const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
    const { csrf } = (await res.json()) as { csrf: string };
    expect(
      (await post('/admin/tokens', { cookie, 'x-csrf-token': csrf, origin: 'https://evil.example' }, { name: 'x' }))
        .status,
    ).toBe(403);
    expect(
      (
        await post(
          '/admin/tokens',
          { cookie, 'x-csrf-token': csrf, origin: 'https://gw.example.com' },
          { name: 'behind-proxy' },
        )
      ).status,
    ).toBe(201);
  });
});

describe('console session', () => {
  it('signing in sets an HttpOnly, SameSite=Strict, Path=/ cookie with an expiry and answers the CSRF token', async () => {
    const before = Date.now();
    const { res, cookie, csrf } = await signIn();
    expect(res.status).toBe(201);
    const set = res.headers.get('set-cookie')!;
    expect(set).toMatch(/^tollway_console=[A-Za-z0-9]{43};/);
    expect(set).toMatch(/HttpOnly/i);
    expect(set).toMatch(/SameSite=Strict/i);
    expect(set).toMatch(/Path=\//);
    expect(set).not.toMatch(/;\s*Secure/i); // plain http here
    const expires = Date.parse(/Expires=([^;]+)/i.exec(set)![1]!);
    expect(expires).toBeGreaterThan(before + 7 * 3600_000);
    expect(csrf).toMatch(/^[A-Za-z0-9]{32}$/);
    // The cookie's secret is not what the store keeps.
    const rows = await t.h.store.db.selectFrom('console_sessions').selectAll().execute();
    expect(rows.some((r) => cookie.endsWith(r.secret_hash))).toBe(false);
    const info = await fetch(`${t.h.url}/console/api/session`, { headers: withCookie(cookie) });
    expect(info.status).toBe(200);
    expect(((await info.json()) as { csrf: string }).csrf).toBe(csrf);
  });

  it('the cookie is Secure when a trusted proxy says the console is reached over HTTPS (X-Forwarded-Proto)', async () => {
    const behind = await t.h.instance({ trustProxy: { addresses: ['loopback'] } });
    const res = await fetch(`${behind.url}/console/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https' },
      body: JSON.stringify({ key: t.h.adminKey }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('set-cookie')).toMatch(/;\s*Secure/i);
  });

  it('X-Forwarded-Proto from a client that is not a trusted proxy decides nothing: the cookie is not Secure', async () => {
    // No TOLLWAY_TRUST_PROXY: any client could claim https and pin a Secure cookie on a plain-http console.
    const direct = await fetch(`${t.h.url}/console/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https' },
      body: JSON.stringify({ key: t.h.adminKey }),
    });
    expect(direct.status).toBe(201);
    expect(direct.headers.get('set-cookie')).not.toMatch(/;\s*Secure/i);
    // Trusting only some other proxy address: the loopback peer is not one of them.
    const elsewhere = await t.h.instance({ trustProxy: { addresses: ['10.9.9.9'] } });
    const res = await fetch(`${elsewhere.url}/console/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https' },
      body: JSON.stringify({ key: t.h.adminKey }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('set-cookie')).not.toMatch(/;\s*Secure/i);
  });

  it('no session: GET /console/api/session is 401 and the admin API refuses a made-up cookie', async () => {
    expect((await fetch(`${t.h.url}/console/api/session`)).status).toBe(401);
    const r = await fetch(`${t.h.url}/admin/tokens`, { headers: withCookie(`tollway_console=${'x'.repeat(43)}`) });
    expect(r.status).toBe(401);
  });

  it('the admin API accepts the cookie for reads; a change needs the CSRF token and a same-origin Origin', async () => {
    const { cookie, csrf } = await signIn();
    expect((await fetch(`${t.h.url}/admin/tokens`, { headers: withCookie(cookie) })).status).toBe(200);
    const create = (headers: Record<string, string>) =>
      fetch(`${t.h.url}/admin/tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...withCookie(cookie), ...headers },
        body: JSON.stringify({ name: 'by-console' }),
      });
    const noCsrf = await create({});
    expect(noCsrf.status).toBe(403);
    expect(JSON.stringify(await noCsrf.json())).toMatch(/X-CSRF-Token/);
    expect((await create({ 'x-csrf-token': 'y'.repeat(32) })).status).toBe(403);
    expect((await create({ 'x-csrf-token': csrf, origin: 'https://evil.example' })).status).toBe(403);
    const ok = await create({ 'x-csrf-token': csrf, origin: t.h.url });
    expect(ok.status).toBe(201);
    const id = ((await ok.json()) as { id: string }).id;
    // The audit line names the console session that made the change.
    const audit = (await (await t.h.admin('/admin/audit?limit=20')).json()) as {
      data: Array<{ actor: string; action: string; target: string }>;
    };
    const line = audit.data.find((a) => a.action === 'token.create' && a.target === id)!;
    expect(line.actor).toMatch(/^console:csn_/);
  });

  it('signing out revokes the session in the store: another instance refuses the cookie too', async () => {
    const { cookie, csrf } = await signIn();
    const other = await t.h.instance();
    expect((await fetch(`${other.url}/admin/tokens`, { headers: withCookie(cookie) })).status).toBe(200);
    // Without the CSRF token, signing out is refused (another site cannot sign the operator out).
    expect(
      (await fetch(`${t.h.url}/console/api/session`, { method: 'DELETE', headers: withCookie(cookie) })).status,
    ).toBe(403);
    const out = await fetch(`${t.h.url}/console/api/session`, {
      method: 'DELETE',
      headers: withCookie(cookie, { 'x-csrf-token': csrf }),
    });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/Expires=Thu, 01 Jan 1970/);
    expect((await fetch(`${other.url}/admin/tokens`, { headers: withCookie(cookie) })).status).toBe(401);
    expect((await fetch(`${t.h.url}/console/api/session`, { headers: withCookie(cookie) })).status).toBe(401);
  });

  it('a console path with a method it does not take is 405 with Allow; an unknown console path is 404', async () => {
    const r = await fetch(`${t.h.url}/console/api/session`, { method: 'PUT' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')?.split(', ').sort()).toEqual(['DELETE', 'GET', 'HEAD', 'POST']);
    expect(r.headers.get('x-gateway-request-id')).toMatch(/^req_/);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe('method_not_allowed');
    const n = await fetch(`${t.h.url}/console/api/nothing-here`);
    expect(n.status).toBe(404);
    expect(((await n.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it('an expired session is refused', async () => {
    const { cookie } = await signIn();
    await t.h.store.db
      .updateTable('console_sessions')
      .set({ expires_at: Date.now() - 1 })
      .execute();
    expect((await fetch(`${t.h.url}/admin/tokens`, { headers: withCookie(cookie) })).status).toBe(401);
  });

  it('console answers carry the strict CSP, nosniff and no-referrer; the page has no inline script or style', async () => {
    for (const path of [
      '/console',
      '/console/',
      '/console/app.js',
      '/console/app.css',
      '/console/api/session',
      '/console/nothing-here',
    ]) {
      const r = await fetch(t.h.url + path);
      const csp = r.headers.get('content-security-policy') ?? '';
      expect(csp, path).toContain("default-src 'none'");
      expect(csp, path).toContain("script-src 'self'");
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).not.toContain('unsafe-inline');
      expect(r.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(r.headers.get('referrer-policy'), path).toBe('no-referrer');
    }
    const page = await (await fetch(`${t.h.url}/console`)).text();
    expect(page).toContain('<script type="module" src="/console/app.js"></script>');
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(page).not.toMatch(/<style|\sstyle=/);
    const js = await fetch(`${t.h.url}/console/app.js`);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await js.text()).length).toBeGreaterThan(1000);
  });

  // Last: it leaves this address locked out for the rest of the minute.
  it('a wrong key gets a clear 403; after 5 in a minute the address gets 429 with Retry-After, even with the right key', async () => {
    const wrong = await signIn(t.h.url, 'not-the-admin-key-at-all');
    expect(wrong.res.status).toBe(403);
    expect(((await wrong.res.json()) as { error: { message: string } }).error.message).toMatch(/not the admin key/);
    expect(wrong.res.headers.get('set-cookie')).toBeNull();
    for (let i = 0; i < 4; i++) expect((await signIn(t.h.url, `wrong-${i}-xxxxxxxxxxxx`)).res.status).toBe(403);
    const limited = await signIn();
    expect(limited.res.status).toBe(429);
    expect(Number(limited.res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.res.headers.get('set-cookie')).toBeNull();
  });
});

describe('console disabled (TOLLWAY_CONSOLE=false)', () => {
  const off = useHarness({ env: { TOLLWAY_CONSOLE: 'false' } });
  it('has no /console and the admin API ignores session cookies', async () => {
    expect((await fetch(`${off.h.url}/console`)).status).toBe(404);
    expect(
      (
        await fetch(`${off.h.url}/console/api/session`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ key: off.h.adminKey }),
        })
      ).status,
    ).toBe(404);
    const rows = await off.h.store.db.selectFrom('console_sessions').selectAll().execute();
    expect(rows).toHaveLength(0);
    expect((await off.h.admin('/admin/tokens')).status).toBe(200);
  });
});
