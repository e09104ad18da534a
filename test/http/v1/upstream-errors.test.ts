// Upstream error answers are mapped to the gateway's codes and sanitised (no upstream URL or key), on every API, with
// no ledger row.
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SIM_KEYS } from '../../../simulator/index.ts';
import { useHarness } from '../../support/harness.ts';
import { ledgerOfRequest } from '../../support/store-rows.ts';
import type { BErr } from '../../support/error-shapes.ts';

const t = useHarness();
afterEach(() => t.h.sim.faults.clear());

const post = (path: string, json: unknown, init: RequestInit = {}) =>
  t.h.fetch(path, { method: 'POST', token: t.token, json, ...init });

describe('upstream errors are mapped and sanitised', () => {
  const cases: Array<[number, number, string]> = [
    [401, 502, 'upstream_auth_error'],
    [403, 403, 'upstream_permission_denied'],
    [429, 429, 'upstream_rate_limited'],
    [500, 502, 'upstream_error'],
  ];
  for (const [upstream, status, code] of cases) {
    it(`upstream ${upstream} → ${status} ${code}, no URL or key in the body, no ledger row`, async () => {
      t.h.sim.faults.add({ kind: 'status', arg: upstream, path: '/compatible-mode/v1/chat/completions' });
      for (const stream of [false, true]) {
        const r = await post('/v1/chat/completions', {
          model: 'qwx3.7-plus',
          stream,
          messages: [{ role: 'user', content: 'hi' }],
        });
        expect(r.status).toBe(status);
        const rid = r.headers.get('x-gateway-request-id')!;
        const text = await r.text();
        expect(text).not.toContain(t.h.sim.url);
        expect(text).not.toContain(String(t.h.sim.port));
        expect(text).not.toContain(DEFAULT_SIM_KEYS.dashscopeApiKey);
        const body = JSON.parse(text) as BErr;
        expect(body.error.code).toBe(code);
        expect(body.error.request_id).toBe(rid);
        expect(body.error.upstream_request_id).toMatch(/^[0-9a-f-]{36}$/);
        // Our words, with the upstream's meaning; never its own text.
        if (upstream === 403)
          expect(body.error.message).toMatch(/^Upstream permission denied \(operator: check model activation/);
        expect(body.error.message).not.toMatch(/access.denied|AccessDenied/i);
        if (upstream === 429) expect(body.error.message).toMatch(/rate limit/i);
        const rows = await ledgerOfRequest(t.h, rid);
        expect(rows).toHaveLength(0);
      }
    });
  }

  const endpoints: Array<[string, string, string, Record<string, unknown>]> = [
    ['responses', '/v1/responses', '/compatible-mode/v1/responses', { model: 'qwx3.7-plus', input: 'hi' }],
    ['embeddings', '/v1/embeddings', '/compatible-mode/v1/embeddings', { model: 'text-embedding-v4', input: ['hi'] }],
    [
      'chat with an image (native multimodal)',
      '/v1/chat/completions',
      'multimodal-generation',
      {
        model: 'qwx3.7-plus',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'look' },
              { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
            ],
          },
        ],
      },
    ],
    [
      'messages',
      '/v1/messages',
      '/apps/anthropic/',
      { model: 'qwx3.7-plus', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] },
    ],
  ];
  for (const [name, path, upstreamPath, json] of endpoints) {
    it(`${name}: upstream 401/403/429/500 → the same mapping, request id, no URL or key, no ledger row`, async () => {
      for (const [upstream, status, code] of cases) {
        t.h.sim.faults.clear();
        t.h.sim.faults.add({ kind: 'status', arg: upstream, path: upstreamPath });
        const r = await post(path, json);
        expect(r.status).toBe(status);
        const rid = r.headers.get('x-gateway-request-id')!;
        const text = await r.text();
        expect(text).not.toContain(t.h.sim.url);
        expect(text).not.toContain(DEFAULT_SIM_KEYS.dashscopeApiKey);
        const body = JSON.parse(text) as BErr;
        expect(body.error.code).toBe(code);
        expect(body.error.request_id).toBe(rid);
        expect(await ledgerOfRequest(t.h, rid)).toHaveLength(0);
      }
      t.h.sim.faults.clear();
    });
  }

  it('the messages path maps upstream errors too (anthropic error body)', async () => {
    t.h.sim.faults.add({ kind: 'status', arg: 403, path: '/apps/anthropic/' });
    const r = await post('/v1/messages', {
      model: 'qwx3.7-plus',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(r.status).toBe(403);
    const body = (await r.json()) as BErr;
    expect(body.error.code).toBe('upstream_permission_denied');
    expect(body.error.message).toMatch(/^Upstream permission denied \(operator: check model activation/);
    expect(body.error.message).not.toContain('not activated');
  });
});
