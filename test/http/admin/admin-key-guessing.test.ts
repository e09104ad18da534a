// Wrong admin keys are counted per client address wherever the admin key is accepted — the console sign-in, an admin
// API bearer, a /metrics scrape — on one counter: after five within a minute the address is refused (429, Retry-After)
// without its key being judged, the right key included. A live client token sent there is refused but not counted.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import type { BErr } from '../../support/error-shapes.ts';

const t = useHarness();

const bearer = (path: string, key: string) =>
  fetch(`${t.h.url}${path}`, { headers: { authorization: `Bearer ${key}` } });

describe('wrong admin keys', () => {
  it('five wrong bearers lock the address out of the admin API, the console sign-in and /metrics; the right key is not judged meanwhile', async () => {
    expect((await bearer('/admin/tokens', t.h.adminKey)).status).toBe(200);
    const wrong: number[] = [];
    for (let i = 0; i < 3; i++) wrong.push((await bearer('/admin/tokens', `guess-${i}-xxxxxxxxxxxxxxxx`)).status);
    wrong.push((await bearer('/metrics', 'guess-m-xxxxxxxxxxxxxxxx')).status);
    // Below the limit the right key still works.
    expect((await bearer('/admin/tokens', t.h.adminKey)).status).toBe(200);
    wrong.push((await bearer('/admin/ledger', 'guess-4-xxxxxxxxxxxxxxxx')).status);
    expect(wrong).toEqual([403, 403, 403, 403, 403]);

    const locked = await bearer('/admin/tokens', t.h.adminKey);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = (await locked.json()) as BErr;
    expect(body.error.code).toBe('rate_limit_exceeded');
    expect(body.error.request_id).toBe(locked.headers.get('x-gateway-request-id'));
    expect((await bearer('/metrics', t.h.adminKey)).status).toBe(429);
    const signIn = await fetch(`${t.h.url}/console/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: t.h.adminKey }),
    });
    expect(signIn.status).toBe(429);
    // Client calls are not the admin key's business: they go on.
    expect((await t.h.fetch('/v1/models', { token: t.token })).status).toBe(200);
  });

  it("a client's own token sent to admin routes is refused (403) but guesses nothing: not counted", async () => {
    const other = await t.h.instance();
    const { secret } = await t.h.token();
    for (let i = 0; i < 8; i++) {
      const r = await fetch(`${other.url}/admin/tokens`, { headers: { authorization: `Bearer ${secret}` } });
      expect(r.status).toBe(403);
    }
    expect(
      (await fetch(`${other.url}/admin/tokens`, { headers: { authorization: `Bearer ${t.h.adminKey}` } })).status,
    ).toBe(200);
  });
});
