// The admin API (/admin/…) through the real server: tokens, channels, audit log.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import type { BErr } from '../../support/error-shapes.ts';

type TokenAnswer = {
  id: string;
  name: string;
  token: string;
  models: string[] | null;
  quota: number | null;
  expires_at: number | null;
  created_at: number;
};
type AuditRow = {
  id: number;
  at: number;
  actor: string;
  action: string;
  target: string | null;
  detail: Record<string, unknown> | null;
  request_id: string | null;
};

const t = useHarness();

const KEY_CANARY = 'sk-ADMIN-CANARY-7777777777';
const KLING_SK_CANARY = 'KLINGSECRET-CANARY-55555';

async function audit(): Promise<AuditRow[]> {
  const r = await t.h.admin('/admin/audit?limit=1000');
  expect(r.status).toBe(200);
  return ((await r.json()) as { data: AuditRow[] }).data;
}

async function modelIds(token: string): Promise<string[]> {
  const r = await t.h.fetch('/v1/models', { token });
  expect(r.status).toBe(200);
  return ((await r.json()) as { data: Array<{ id: string }> }).data.map((m) => m.id);
}

describe('admin auth', () => {
  it('no key → 401, a client token → 403, a wrong key → 403; all with request id', async () => {
    const none = await t.h.fetch('/admin/tokens');
    expect(none.status).toBe(401);
    expect(((await none.json()) as BErr).error.code).toBe('missing_token');
    const { secret } = await t.h.token();
    for (const key of [secret, 'not-the-admin-key-at-all']) {
      const r = await t.h.fetch('/admin/tokens', { token: key });
      expect(r.status).toBe(403);
      const body = (await r.json()) as BErr;
      expect(body.error.code).toBe('permission_denied');
      expect(body.error.request_id).toBe(r.headers.get('x-gateway-request-id'));
    }
    // Refused writes change nothing.
    const before = (await audit()).length;
    expect((await t.h.fetch('/admin/tokens', { method: 'POST', token: secret, json: { name: 'sneaky' } })).status).toBe(
      403,
    );
    expect((await audit()).length).toBe(before);
  });
});

describe('admin tokens', () => {
  it('POST /admin/tokens → 201 with exactly {id,name,token,callback_secret,models,quota,account_id,budgets,expires_at,created_at}; the token works', async () => {
    const exp = Date.now() + 86_400_000;
    const r = await t.h.admin('/admin/tokens', {
      method: 'POST',
      json: { name: 'alice', models: ['qwx3.7-plus'], quota: 5_000_000, expires_at: exp },
    });
    expect(r.status).toBe(201);
    expect(r.headers.get('x-gateway-request-id')).toMatch(/^req_/);
    const tok = (await r.json()) as TokenAnswer;
    expect(Object.keys(tok).sort()).toEqual([
      'account_id',
      'budgets',
      'callback_secret',
      'created_at',
      'expires_at',
      'id',
      'models',
      'name',
      'quota',
      'token',
    ]);
    expect(tok).toMatchObject({ name: 'alice', models: ['qwx3.7-plus'], quota: 5_000_000, expires_at: exp });
    expect(tok.token).toMatch(/^tw-/);
    expect(Math.abs(tok.created_at - Date.now())).toBeLessThan(600_000);
    expect(await modelIds(tok.token)).toEqual(['qwx3.7-plus']);
  });

  it('defaults: no allow-list, no quota, no expiry', async () => {
    const tok = (await (
      await t.h.admin('/admin/tokens', { method: 'POST', json: { name: 'bob' } })
    ).json()) as TokenAnswer;
    expect(tok).toMatchObject({ name: 'bob', models: null, quota: null, expires_at: null });
  });

  it("limits set on create are shown in the token's view (rpm, tpm, concurrency; null when not set)", async () => {
    const tok = (await (
      await t.h.admin('/admin/tokens', {
        method: 'POST',
        json: { name: 'limited', rpm_limit: 30, tpm_limit: 40_000, concurrency_limit: 2 },
      })
    ).json()) as TokenAnswer;
    expect(await (await t.h.admin(`/admin/tokens/${tok.id}`)).json()).toMatchObject({
      rpm_limit: 30,
      tpm_limit: 40_000,
      concurrency_limit: 2,
    });
    const plain = (await (
      await t.h.admin('/admin/tokens', { method: 'POST', json: { name: 'plain' } })
    ).json()) as TokenAnswer;
    expect(await (await t.h.admin(`/admin/tokens/${plain.id}`)).json()).toMatchObject({
      rpm_limit: null,
      tpm_limit: null,
      concurrency_limit: null,
    });
  });

  it('the secret appears only in the creation answer', async () => {
    const tok = (await (
      await t.h.admin('/admin/tokens', { method: 'POST', json: { name: 'carol' } })
    ).json()) as TokenAnswer;
    const list = await (await t.h.admin('/admin/tokens')).text();
    expect(list).toContain(tok.id);
    expect(list).not.toContain(tok.token);
    const one = await t.h.admin(`/admin/tokens/${tok.id}`);
    expect(one.status).toBe(200);
    const oneText = await one.text();
    expect(oneText).toContain('"name":"carol"');
    expect(oneText).not.toContain(tok.token);
    const revoked = await t.h.admin(`/admin/tokens/${tok.id}`, { method: 'DELETE' });
    expect(revoked.status).toBe(200);
    const revokedBody = (await revoked.json()) as { revoked_at: number | null };
    expect(revokedBody.revoked_at).toEqual(expect.any(Number));
    expect(JSON.stringify(revokedBody)).not.toContain(tok.token);
    expect(JSON.stringify(await audit())).not.toContain(tok.token);
    expect(t.h.logs.join('')).not.toContain(tok.token);
  });

  it('validation errors are 400 with the field named', async () => {
    const cases: Array<[unknown, string, string]> = [
      [{}, 'missing_parameter', 'name'],
      [{ name: '' }, 'missing_parameter', 'name'],
      [{ name: 5 }, 'invalid_parameter', 'name'],
      [{ name: 'x', models: 'qwx3.7-plus' }, 'invalid_parameter', 'models'],
      [{ name: 'x', models: ['no-such-model'] }, 'invalid_parameter', 'models'],
      [{ name: 'x', quota: -1 }, 'invalid_parameter', 'quota'],
      [{ name: 'x', quota: 1.5 }, 'invalid_parameter', 'quota'],
      [{ name: 'x', quota: '5' }, 'invalid_parameter', 'quota'],
      [{ name: 'x', tpm_limit: 0 }, 'invalid_parameter', 'tpm_limit'],
      [{ name: 'x', tpm_limit: 2_000_000_000 }, 'invalid_parameter', 'tpm_limit'],
      [{ name: 'x', expires_at: Date.now() - 1000 }, 'invalid_parameter', 'expires_at'],
      [{ name: 'x', expires_at: Math.floor(Date.now() / 1000) + 3600 }, 'invalid_parameter', 'expires_at'], // seconds by mistake
      // A misspelt field is refused, not dropped: the token would have been made without the limit it names.
      [{ name: 'x', model: ['qwx3.7-plus'] }, 'invalid_parameter', 'model'],
      [{ name: 'x', quota_micro: 1000 }, 'invalid_parameter', 'quota_micro'],
    ];
    for (const [json, code, param] of cases) {
      const r = await t.h.admin('/admin/tokens', { method: 'POST', json });
      expect(r.status, JSON.stringify(json)).toBe(400);
      const body = (await r.json()) as BErr;
      expect(body.error.code, JSON.stringify(json)).toBe(code);
      expect(body.error.param, JSON.stringify(json)).toBe(param);
    }
    const arr = await t.h.admin('/admin/tokens', { method: 'POST', json: [] });
    expect(arr.status).toBe(400);
    const broken = await t.h.admin('/admin/tokens', {
      method: 'POST',
      body: '{"name":',
      headers: { 'content-type': 'application/json' },
    });
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as BErr).error.code).toBe('invalid_json');
  });

  it('unknown token id → 404 on get and revoke', async () => {
    expect((await t.h.admin('/admin/tokens/tok_nope')).status).toBe(404);
    expect((await t.h.admin('/admin/tokens/tok_nope', { method: 'DELETE' })).status).toBe(404);
  });
});

describe('admin channels', () => {
  it('add (201, no keys in the answer), list (never keys), disable removes its models from /v1/models, enable restores', async () => {
    const { secret } = await t.h.token({ models: ['qwx3.7-plus', 'vidx-v1'] });
    // The harness channels serve everything; disable them so this test's channel is the only dashscope one.
    const listed = (await (await t.h.admin('/admin/channels')).json()) as { data: Array<{ id: string; name: string }> };
    const simDash = listed.data.find((c) => c.name === 'sim-dashscope')!;
    expect((await t.h.admin(`/admin/channels/${simDash.id}/disable`, { method: 'POST' })).status).toBe(200);
    expect(await modelIds(secret)).toEqual(['vidx-v1']);

    const add = await t.h.admin('/admin/channels', {
      method: 'POST',
      json: { name: 'ds-main', kind: 'dashscope', base_url: t.h.sim.url, api_key: KEY_CANARY, models: ['qwx3.7-plus'] },
    });
    expect(add.status).toBe(201);
    const addText = await add.text();
    expect(addText).not.toContain(KEY_CANARY);
    const ch = JSON.parse(addText) as { id: string; name: string; kind: string; status: string; models: string[] };
    expect(ch).toMatchObject({ name: 'ds-main', kind: 'dashscope', status: 'enabled', models: ['qwx3.7-plus'] });
    expect(await modelIds(secret)).toEqual(['qwx3.7-plus', 'vidx-v1']);

    const kl = await t.h.admin('/admin/channels', {
      method: 'POST',
      json: {
        name: 'kl-2',
        kind: 'kling',
        base_url: t.h.sim.url,
        access_key: 'ak-visible',
        secret_key: KLING_SK_CANARY,
      },
    });
    expect(kl.status).toBe(201);
    expect(await kl.text()).not.toContain(KLING_SK_CANARY);

    const list = await (await t.h.admin('/admin/channels')).text();
    expect(list).toContain('ds-main');
    expect(list).not.toContain(KEY_CANARY);
    expect(list).not.toContain(KLING_SK_CANARY);
    expect(list).not.toContain('key_enc');

    const dis = await t.h.admin(`/admin/channels/${ch.id}/disable`, { method: 'POST' });
    expect(dis.status).toBe(200);
    expect(((await dis.json()) as { status: string }).status).toBe('disabled');
    expect(await modelIds(secret)).toEqual(['vidx-v1']);
    const gone = await t.h.fetch('/v1/models/qwx3.7-plus', { token: secret });
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as BErr).error.code).toBe('model_not_found');

    expect((await t.h.admin(`/admin/channels/${ch.id}/enable`, { method: 'POST' })).status).toBe(200);
    expect(await modelIds(secret)).toEqual(['qwx3.7-plus', 'vidx-v1']);
    // DELETE is a disable too (channels are kept for the audit trail)
    expect((await t.h.admin(`/admin/channels/${ch.id}`, { method: 'DELETE' })).status).toBe(200);
    expect(await modelIds(secret)).toEqual(['vidx-v1']);
    await t.h.admin(`/admin/channels/${simDash.id}/enable`, { method: 'POST' });
    expect(await modelIds(secret)).toEqual(['qwx3.7-plus', 'vidx-v1']);
  });

  it('validation: kind, keys, region, models, duplicate name', async () => {
    const cases: Array<[unknown, number, string, string]> = [
      [{ name: 'c1' }, 400, 'missing_parameter', 'kind'],
      [{ name: 'c1', kind: 'openai', api_key: 'k' }, 400, 'invalid_parameter', 'kind'],
      [{ name: 'c1', kind: 'dashscope' }, 400, 'missing_parameter', 'api_key'],
      [{ name: 'c1', kind: 'kling', access_key: 'a' }, 400, 'missing_parameter', 'secret_key'],
      [
        { name: 'c1', kind: 'dashscope', api_key: 'k', base_url: 'https://dashscope-intl.aliyuncs.com' },
        400,
        'invalid_parameter',
        'base_url',
      ],
      [
        { name: 'c1', kind: 'kling', access_key: 'a', secret_key: 's', base_url: 'https://api-singapore.klingai.com' },
        400,
        'invalid_parameter',
        'base_url',
      ],
      [{ name: 'c1', kind: 'dashscope', api_key: 'k', base_url: 'not a url' }, 400, 'invalid_parameter', 'base_url'],
      [{ name: 'c1', kind: 'dashscope', api_key: 'k', models: ['no-such'] }, 400, 'invalid_parameter', 'models'],
      [{ name: 'c1', kind: 'dashscope', api_key: 'k', models: ['vidx-v1'] }, 400, 'invalid_parameter', 'models'],
      [{ name: 'sim-dashscope', kind: 'dashscope', api_key: 'k' }, 409, 'conflict', 'name'],
      // A misspelt field is refused, not dropped (`model` would have made a channel serving every model), and so is
      // the other kind's key field.
      [{ name: 'c1', kind: 'dashscope', api_key: 'k', model: ['qwx3.7-plus'] }, 400, 'invalid_parameter', 'model'],
      [{ name: 'c1', kind: 'dashscope', api_key: 'k', secret_key: 's' }, 400, 'invalid_parameter', 'secret_key'],
      [
        { name: 'c1', kind: 'kling', access_key: 'a', secret_key: 's', api_key: 'k' },
        400,
        'invalid_parameter',
        'api_key',
      ],
    ];
    for (const [json, status, code, param] of cases) {
      const r = await t.h.admin('/admin/channels', { method: 'POST', json });
      expect(r.status, JSON.stringify(json)).toBe(status);
      const body = (await r.json()) as BErr;
      expect(body.error.code, JSON.stringify(json)).toBe(code);
      expect(body.error.param, JSON.stringify(json)).toBe(param);
    }
    expect((await t.h.admin('/admin/channels/ch_nope/disable', { method: 'POST' })).status).toBe(404);
  });
});

describe('audit log', () => {
  it('every admin action is recorded with actor, target and the request id', async () => {
    const created = await t.h.admin('/admin/tokens', {
      method: 'POST',
      json: { name: 'audited', models: ['qwx3.7-plus'] },
    });
    const tok = (await created.json()) as TokenAnswer;
    const revoked = await t.h.admin(`/admin/tokens/${tok.id}`, { method: 'DELETE' });
    const ch = await t.h.admin('/admin/channels', {
      method: 'POST',
      json: { name: 'audited-ch', kind: 'dashscope', base_url: t.h.sim.url, api_key: KEY_CANARY },
    });
    const c = (await ch.json()) as { id: string };
    const dis = await t.h.admin(`/admin/channels/${c.id}/disable`, { method: 'POST' });
    const en = await t.h.admin(`/admin/channels/${c.id}/enable`, { method: 'POST' });

    const rows = await audit();
    const find = (action: string, target: string) => rows.find((r) => r.action === action && r.target === target);
    expect(find('token.create', tok.id)).toMatchObject({
      actor: 'admin',
      request_id: created.headers.get('x-gateway-request-id'),
      detail: { name: 'audited', models: ['qwx3.7-plus'] },
    });
    expect(find('token.revoke', tok.id)).toMatchObject({
      actor: 'admin',
      request_id: revoked.headers.get('x-gateway-request-id'),
    });
    // Revoking it again changes nothing: the same view (its first revocation time), no second audit line.
    const first = (await revoked.clone().json()) as { revoked_at: number };
    const again = await t.h.admin(`/admin/tokens/${tok.id}`, { method: 'DELETE' });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { revoked_at: number }).revoked_at).toBe(first.revoked_at);
    expect((await audit()).filter((r) => r.action === 'token.revoke' && r.target === tok.id)).toHaveLength(1);
    expect(find('channel.create', c.id)).toMatchObject({
      actor: 'admin',
      request_id: ch.headers.get('x-gateway-request-id'),
      detail: { name: 'audited-ch', kind: 'dashscope' },
    });
    expect(find('channel.disable', c.id)).toMatchObject({ request_id: dis.headers.get('x-gateway-request-id') });
    expect(find('channel.enable', c.id)).toMatchObject({ request_id: en.headers.get('x-gateway-request-id') });
    // newest first
    expect(rows[0]!.action).toBe('channel.enable');
    // never a key, never a token secret
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(KEY_CANARY);
    expect(dump).not.toContain(tok.token);
  });
});

describe('audit log paging', () => {
  it('limit is strict: out-of-range or non-numeric values are 400 invalid_parameter', async () => {
    for (const qs of ['limit=0', 'limit=1001', 'limit=ten']) {
      const r = await t.h.admin(`/admin/audit?${qs}`);
      expect(r.status, qs).toBe(400);
      expect(((await r.json()) as BErr).error.code).toBe('invalid_parameter');
    }
    const one = await t.h.admin('/admin/audit?limit=1');
    expect(((await one.json()) as { data: unknown[] }).data.length).toBeLessThanOrEqual(1);
  });

  it('pages on by cursor (each entry once), filters by action, actor and target, and refuses unknown parameters', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(
        (
          (await (
            await t.h.admin('/admin/tokens', { method: 'POST', json: { name: `paged-${i}` } })
          ).json()) as TokenAnswer
        ).id,
      );
    type Page = { data: AuditRow[]; has_more: boolean; next_cursor?: string };
    const seen: AuditRow[] = [];
    let url = '/admin/audit?action=token.create&limit=2';
    for (let guard = 0; guard < 100; guard++) {
      const page = (await (await t.h.admin(url)).json()) as Page;
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data);
      if (!page.has_more) break;
      url = `/admin/audit?action=token.create&limit=2&cursor=${encodeURIComponent(page.next_cursor!)}`;
    }
    expect(seen.every((r) => r.action === 'token.create')).toBe(true);
    expect(new Set(seen.map((r) => r.id)).size).toBe(seen.length);
    expect(seen.map((r) => r.id)).toEqual([...seen.map((r) => r.id)].sort((a, b) => b - a));
    for (const id of ids) expect(seen.filter((r) => r.target === id)).toHaveLength(1);
    const byTarget = (await (await t.h.admin(`/admin/audit?target=${ids[2]}&actor=admin`)).json()) as Page;
    expect(byTarget.data.map((r) => [r.action, r.target])).toEqual([['token.create', ids[2]]]);
    expect((await (await t.h.admin('/admin/audit?actor=nobody')).json()) as Page).toMatchObject({
      data: [],
      has_more: false,
    });
    // `console` finds the changes of every console session (stored as console:<session id>).
    const signIn = await fetch(`${t.h.url}/console/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: t.h.adminKey }),
    });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const { csrf, session_id: sessionId } = (await signIn.json()) as { csrf: string; session_id: string };
    const made = await fetch(`${t.h.url}/admin/tokens`, {
      method: 'POST',
      headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'from-console' }),
    });
    const viaConsole = ((await made.json()) as TokenAnswer).id;
    const consoleRows = ((await (await t.h.admin('/admin/audit?actor=console')).json()) as Page).data;
    expect(consoleRows.map((r) => [r.actor, r.target])).toEqual([[`console:${sessionId}`, viaConsole]]);
    expect(((await (await t.h.admin(`/admin/audit?actor=console:${sessionId}`)).json()) as Page).data).toHaveLength(1);
    for (const qs of ['since=1', 'cursor=not-a-cursor']) {
      const r = await t.h.admin(`/admin/audit?${qs}`);
      expect(r.status, qs).toBe(400);
      expect(((await r.json()) as BErr).error.code).toBe('invalid_parameter');
    }
  });
});
