// The basics end to end through the real server: the health check, both families' 401, a token from the admin API
// and its allow-list, revocation at once, unknown paths and wrong methods.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.ts';
import type { AErr, BErr } from '../support/error-shapes.ts';

const t = useHarness();

describe('gateway basics through the real server', () => {
  it('healthz answers without auth', async () => {
    const r = await t.h.fetch('/healthz');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-gateway-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
  });

  it('401 in family B shape without a token, with request id', async () => {
    const r = await t.h.fetch('/v1/models');
    expect(r.status).toBe(401);
    const body = (await r.json()) as BErr;
    const rid = r.headers.get('x-gateway-request-id');
    expect(body.error.code).toBe('missing_token');
    expect(body.error.request_id).toBe(rid);
    expect(body.error.message).toContain(`(request id: ${rid})`);
  });

  it('401 in family A envelope', async () => {
    const r = await t.h.fetch('/vidx/v1/videos/text2video', {
      method: 'POST',
      json: { prompt: 'x' },
      token: 'tw-wrong',
    });
    expect(r.status).toBe(401);
    const body = (await r.json()) as AErr;
    expect(body.code).not.toBe(0);
    expect(body.data).toBeNull();
    expect(body.request_id).toBe(r.headers.get('x-gateway-request-id'));
  });

  it('lists models for an admin-created token; allow-list shapes the list', async () => {
    const created = await t.h.admin('/admin/tokens', {
      method: 'POST',
      json: { name: 'a', models: ['qwx3.7-plus', 'text-embedding-v4'] },
    });
    expect(created.status).toBe(201);
    const tok = (await created.json()) as { id: string; token: string };
    const r = await t.h.fetch('/v1/models', { token: tok.token });
    expect(r.status).toBe(200);
    const list = (await r.json()) as { object: string; data: Array<{ id: string; object: string }> };
    expect(list.object).toBe('list');
    expect(list.data.map((m) => m.id).sort()).toEqual(['qwx3.7-plus', 'text-embedding-v4']);
  });

  it('revoke takes effect immediately', async () => {
    const created = (await (await t.h.admin('/admin/tokens', { method: 'POST', json: { name: 'r' } })).json()) as {
      id: string;
      token: string;
    };
    expect((await t.h.fetch('/v1/models', { token: created.token })).status).toBe(200);
    expect((await t.h.admin(`/admin/tokens/${created.id}`, { method: 'DELETE' })).status).toBe(200);
    const r = await t.h.fetch('/v1/models', { token: created.token });
    expect(r.status).toBe(401);
    expect(((await r.json()) as BErr).error.code).toBe('token_revoked');
  });

  it('unknown path 404 and wrong method 405 in family shape', async () => {
    const { secret } = await t.h.token();
    const r = await t.h.fetch('/v1/nope', { token: secret });
    expect(r.status).toBe(404);
    const r2 = await t.h.fetch('/v1/models', { token: secret, method: 'POST', json: {} });
    expect(r2.status).toBe(405);
    expect(((await r2.json()) as BErr).error.code).toBe('method_not_allowed');
  });
});
