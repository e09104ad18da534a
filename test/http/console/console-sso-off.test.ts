// Single sign-on off, and its issuer out of reach: the sign-in page's question answers plainly, and the browser's
// addresses answer with pages (404 off, 502 unreachable), never a session. A gateway whose issuer is down starts.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';

describe('single sign-on off', () => {
  const t = useHarness();

  it('GET /console/sso says so; start and callback are 404 pages', async () => {
    expect(await (await t.h.fetch('/console/sso')).json()).toEqual({ enabled: false });
    for (const path of ['/console/sso/start', '/console/sso/callback?code=a&state=b']) {
      const r = await t.h.fetch(path, { redirect: 'manual' });
      expect(r.status).toBe(404);
      expect(r.headers.get('content-type')).toContain('text/html');
      expect(await r.text()).toContain('Single sign-on is off');
    }
    // Logout has no issuer to go on to: back to the console.
    const out = await t.h.fetch('/console/sso/logout', { redirect: 'manual' });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/console/');
  });
});

describe('single sign-on with its issuer out of reach', () => {
  // Port 9 (discard) on loopback: nothing listens there, the connection is refused.
  const t = useHarness({
    env: {
      TOLLWAY_PUBLIC_URL: 'http://127.0.0.1:1',
      TOLLWAY_OIDC_ISSUER: 'http://127.0.0.1:9',
      TOLLWAY_OIDC_CLIENT_ID: 'tollway',
      TOLLWAY_OIDC_NAME: 'Down IdP',
      TOLLWAY_OIDC_ROLES: 'admins:admin',
      TOLLWAY_OIDC_EMAIL_DOMAINS: 'staff.test',
    },
  });

  it('the gateway starts; the start is a 502 page and sets no cookie', async () => {
    expect(await (await t.h.fetch('/console/sso')).json()).toMatchObject({ enabled: true, name: 'Down IdP' });
    const r = await t.h.fetch('/console/sso/start', { redirect: 'manual' });
    expect(r.status).toBe(502);
    expect(await r.text()).toContain('The sign-in service is unreachable');
    expect(r.headers.getSetCookie().some((c) => /^tollway_(sso|console)=[^;]/.test(c))).toBe(false);
  });
});
