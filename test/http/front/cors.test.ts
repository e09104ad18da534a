// TOLLWAY_CORS_ORIGINS: browser clients of allowed origins get their preflight answered (before any credential)
// and every answer — success or error, either front, every family — carries their origin back and exposes the
// headers they read. Other origins, and every origin when the setting is off (the default), get no CORS header.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';

const APP = 'https://app.example.com';
const DEV = 'http://localhost:5173';
const OTHER = 'https://evil.example.net';

// What the official SDKs send from a browser (openai: dangerouslyAllowBrowser; anthropic: the direct-access header).
const SDK_HEADERS =
  'authorization, content-type, x-stainless-lang, x-stainless-os, x-stainless-retry-count, x-stainless-timeout, anthropic-version, anthropic-dangerous-direct-browser-access, x-api-key';

const preflight = (base: string, path: string, origin: string, method = 'POST') =>
  fetch(base + path, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': SDK_HEADERS },
  });

// One path per family and front: the text lane (chat, messages), Fastify family B, family A, admin.
const PATHS: Array<[string, string]> = [
  ['/v1/chat/completions', 'POST'],
  ['/v1/messages', 'POST'],
  ['/v1/models', 'GET'],
  ['/vidx/v1/videos/text2video', 'POST'],
  ['/admin/tokens', 'GET'],
];

describe('CORS on', () => {
  const t = useHarness({ env: { TOLLWAY_CORS_ORIGINS: `${APP}, ${DEV}` } });

  it.each(PATHS)(
    'preflight %s from an allowed origin: 204 without a credential, methods, the SDK headers',
    async (path, method) => {
      for (const origin of [APP, DEV]) {
        const r = await preflight(t.h.url, path, origin, method);
        expect(r.status).toBe(204);
        expect(r.headers.get('access-control-allow-origin')).toBe(origin);
        expect(r.headers.get('access-control-allow-methods')).toContain(method);
        expect(r.headers.get('access-control-allow-headers')).toBe(SDK_HEADERS);
        expect(r.headers.get('vary')).toMatch(/Origin/);
      }
    },
  );

  it.each(PATHS)('preflight %s from another origin: no CORS header (the browser refuses)', async (path) => {
    const r = await preflight(t.h.url, path, OTHER);
    expect(r.status).not.toBe(204);
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('a requested header no client sends is not allowed', async () => {
    const r = await fetch(`${t.h.url}/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: {
        origin: APP,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, x-internal-secret',
      },
    });
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-headers')).toBeNull();
  });

  const calls: Array<[string, (token: string) => RequestInit & { path: string }]> = [
    [
      'lane chat',
      (token) => ({
        path: '/v1/chat/completions',
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'hi' }] }),
      }),
    ],
    [
      'lane chat stream',
      (token) => ({
        path: '/v1/chat/completions',
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'qwx3.7-plus', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      }),
    ],
    [
      'lane messages, bad token',
      () => ({
        path: '/v1/messages',
        method: 'POST',
        headers: { 'x-api-key': 'tw-wrong-00000000000000', 'content-type': 'application/json' },
        body: '{}',
      }),
    ],
    ['Fastify models', (token) => ({ path: '/v1/models', headers: { authorization: `Bearer ${token}` } })],
    ['Fastify 404', (token) => ({ path: '/v1/models/nope', headers: { authorization: `Bearer ${token}` } })],
    [
      'family A',
      (token) => ({ path: '/vidx/v1/videos/text2video/nope', headers: { authorization: `Bearer ${token}` } }),
    ],
  ];

  it.each(calls)(
    '%s: the origin echoed, request ids and rate-limit headers exposed; nothing for another origin',
    async (_name, make) => {
      const { path, headers, ...init } = make(t.token);
      const r = await fetch(t.h.url + path, {
        ...init,
        headers: { ...(headers as Record<string, string>), origin: APP },
      });
      await r.arrayBuffer();
      expect(r.headers.get('access-control-allow-origin')).toBe(APP);
      const exposed = (r.headers.get('access-control-expose-headers') ?? '').split(', ');
      for (const h of [
        'x-request-id',
        'request-id',
        'x-gateway-request-id',
        'retry-after',
        'x-ratelimit-remaining-requests',
      ])
        expect(exposed).toContain(h);
      expect(r.headers.get('x-request-id')).toBe(r.headers.get('x-gateway-request-id'));
      const { path: p2, headers: h2, ...init2 } = make(t.token);
      const o = await fetch(t.h.url + p2, { ...init2, headers: { ...(h2 as Record<string, string>), origin: OTHER } });
      await o.arrayBuffer();
      expect(o.status).toBe(r.status);
      expect(o.headers.get('access-control-allow-origin')).toBeNull();
    },
  );
});

describe('CORS off (the default)', () => {
  const t = useHarness();

  it('no preflight answer and no CORS header, whatever the origin', async () => {
    const pre = await preflight(t.h.url, '/v1/chat/completions', APP);
    expect(pre.status).toBe(401); // an ordinary request: no credential
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    const r = await fetch(`${t.h.url}/v1/models`, { headers: { authorization: `Bearer ${t.token}`, origin: APP } });
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
  });
});
