// The console's wrong-key limit and the access line take the client address from the one rule (front.ts
// clientAddress): with TOLLWAY_TRUST_PROXY off a forged X-Forwarded-For changes nothing; behind a trusted proxy
// (here loopback: the test's own connections) two forwarded clients are limited apart.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';

const signIn = (url: string, key: string, forwardedFor?: string) =>
  fetch(`${url}/console/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
    body: JSON.stringify({ key }),
  });

/** The access lines written for a request id. */
function accessLines(logs: string[], requestId: string): Array<{ client: string; path: string }> {
  return logs
    .flatMap((l) => l.split('\n'))
    .filter((l) => l.includes(`"request_id":"${requestId}"`) && l.includes('"msg":"request"'))
    .map((l) => JSON.parse(l) as { client: string; path: string });
}

describe('TOLLWAY_TRUST_PROXY off (the default)', () => {
  const t = useHarness();

  it('a forged X-Forwarded-For neither evades the wrong-key limit nor shows in the access line', async () => {
    for (let i = 0; i < 5; i++) {
      const r = await signIn(t.h.url, `wrong-key-${i}-xxxxxxxxxx`, `198.51.100.${i + 1}`);
      expect(r.status).toBe(403);
      expect(accessLines(t.h.logs, r.headers.get('x-gateway-request-id')!)[0]?.client).toBe('127.0.0.1');
    }
    const sixth = await signIn(t.h.url, t.h.adminKey, '198.51.100.99');
    expect(sixth.status).toBe(429);
    expect(sixth.headers.get('set-cookie')).toBeNull();
  });
});

describe('TOLLWAY_TRUST_PROXY=loopback (the gateway behind a proxy on this host)', () => {
  const t = useHarness({ env: { TOLLWAY_TRUST_PROXY: 'loopback' } });

  it('two forwarded clients are limited separately', async () => {
    for (let i = 0; i < 5; i++)
      expect((await signIn(t.h.url, `wrong-key-${i}-xxxxxxxxxx`, '198.51.100.1')).status).toBe(403);
    expect((await signIn(t.h.url, t.h.adminKey, '198.51.100.1')).status).toBe(429);
    // Another client behind the same proxy is not locked out by the first one's failures.
    const other = await signIn(t.h.url, t.h.adminKey, '198.51.100.2');
    expect(other.status).toBe(201);
    expect(other.headers.get('set-cookie')).toMatch(/^tollway_console=/);
    // A client that names someone else left of the address the proxy appended is still itself.
    expect((await signIn(t.h.url, t.h.adminKey, '198.51.100.2, 198.51.100.1')).status).toBe(429);
    // The proxy itself (no X-Forwarded-For) is a third address.
    expect((await signIn(t.h.url, t.h.adminKey)).status).toBe(201);
  });

  it('the access line names the forwarded client on both fronts (the text lane and the framework)', async () => {
    const tok = await t.h.token({ name: 'behind-proxy' });
    const chat = await t.h.fetch('/v1/chat/completions', {
      method: 'POST',
      token: tok.secret,
      headers: { 'x-forwarded-for': '203.0.113.5, 203.0.113.6' },
      json: { model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(chat.status).toBe(200);
    const models = await t.h.fetch('/v1/models', { token: tok.secret, headers: { 'x-forwarded-for': '203.0.113.7' } });
    expect(models.status).toBe(200);
    await expect
      .poll(() => accessLines(t.h.logs, chat.headers.get('x-gateway-request-id')!)[0])
      .toMatchObject({ path: '/v1/chat/completions', client: '203.0.113.6' });
    await expect
      .poll(() => accessLines(t.h.logs, models.headers.get('x-gateway-request-id')!)[0])
      .toMatchObject({ path: '/v1/models', client: '203.0.113.7' });
  });
});
