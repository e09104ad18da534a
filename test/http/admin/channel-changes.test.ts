// One channel read, edited and checked through the admin API (keys write-only, breaker state in the view), and what
// clients get when every channel serving a model is disabled — on the store of the test run.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIM_KEYS } from '../../../simulator/index.ts';
import { expectA, expectB } from '../../support/error-shapes.ts';
import { useHarness } from '../../support/harness.ts';
import { openaiClient } from '../../support/sdk.ts';

type Breaker = {
  state: string;
  consecutive_failures: number;
  open_until: number | null;
  recent_failures: Array<{ at: number; code: string }>;
};
type ChannelView = {
  id: string;
  name: string;
  kind: string;
  base_url: string;
  models: string[] | null;
  status: string;
  priority: number;
  weight: number;
  keys: Record<string, string | null>;
  breaker: Breaker;
};
type Check = { id: string; ok: boolean; latency_ms: number; error: { code: string; message: string } | null };
type AuditRow = { action: string; target: string | null; detail: Record<string, unknown> | null };

const CHAT = 'qwx3.7-plus';
const chatBody = (content = 'hello') => ({ model: CHAT, messages: [{ role: 'user' as const, content }] });

describe('one channel: read, edit, check', () => {
  const t = useHarness();
  const channels = async () => ((await (await t.h.admin('/admin/channels')).json()) as { data: ChannelView[] }).data;
  const byKind = async (kind: string) => (await channels()).find((c) => c.kind === kind && c.name.startsWith('sim-'))!;
  const one = async (id: string) => (await (await t.h.admin(`/admin/channels/${id}`)).json()) as ChannelView;
  const patch = (id: string, json: unknown) => t.h.admin(`/admin/channels/${id}`, { method: 'PATCH', json });
  const check = async (id: string) => {
    const r = await t.h.admin(`/admin/channels/${id}/test`, { method: 'POST' });
    expect(r.status).toBe(200);
    const text = await r.text();
    return { check: JSON.parse(text) as Check, text };
  };
  const audit = async (id: string) =>
    ((await (await t.h.admin('/admin/audit?limit=1000')).json()) as { data: AuditRow[] }).data.filter(
      (a) => a.target === id,
    );

  it('GET /admin/channels/{id}: the channel with masked keys and a closed breaker; unknown id → 404', async () => {
    const dash = await byKind('dashscope');
    const c = await one(dash.id);
    expect(c).toMatchObject({
      id: dash.id,
      kind: 'dashscope',
      status: 'enabled',
      breaker: { state: 'closed', consecutive_failures: 0, open_until: null, recent_failures: [] },
    });
    expect(c.keys).toEqual({ api_key: `****${DEFAULT_SIM_KEYS.dashscopeApiKey.slice(-4)}` });
    const kling = await one((await byKind('kling')).id);
    expect(kling.keys).toEqual({ access_key: `****${DEFAULT_SIM_KEYS.klingAccessKey.slice(-4)}`, secret_key: '****' });
    const all = JSON.stringify(await channels()) + JSON.stringify(c) + JSON.stringify(kling);
    for (const secret of [
      DEFAULT_SIM_KEYS.dashscopeApiKey,
      DEFAULT_SIM_KEYS.klingAccessKey,
      DEFAULT_SIM_KEYS.klingSecretKey,
    ])
      expect(all).not.toContain(secret);
    await expectB(await t.h.admin('/admin/channels/ch_nope'), 404, 'not_found');
  });

  it('POST …/test: ok with a latency against the simulator, for both kinds; nothing billed', async () => {
    const ledger = async () => ((await (await t.h.admin('/admin/ledger')).json()) as { data: unknown[] }).data.length;
    const charges = await ledger();
    const probes = t.h.sim.requestsTo('/compatible-mode/v1/models').length;
    for (const kind of ['dashscope', 'kling']) {
      const { check: c } = await check((await byKind(kind)).id);
      expect(c).toMatchObject({ ok: true, error: null });
      expect(c.latency_ms).toBeGreaterThanOrEqual(0);
    }
    expect(t.h.sim.requestsTo('/compatible-mode/v1/models').length).toBe(probes + 1);
    expect(await ledger()).toBe(charges);
    await expectB(await t.h.admin('/admin/channels/ch_nope/test', { method: 'POST' }), 404, 'not_found');
  });

  it('POST …/test against an upstream fault: a sanitised failure (no key, no address, no upstream words), audited', async () => {
    const dash = await byKind('dashscope');
    // The careless upstream echoes the credential and the full URL it received.
    t.h.sim.faults.add({ kind: 'leak', arg: 500, path: '/compatible-mode/v1/models', times: 1 });
    const { check: c, text } = await check(dash.id);
    expect(c).toMatchObject({
      ok: false,
      error: { code: 'upstream_error', message: 'The upstream answered with an error' },
    });
    for (const s of [DEFAULT_SIM_KEYS.dashscopeApiKey, t.h.sim.url, '127.0.0.1', 'Credential', 'Bearer'])
      expect(text).not.toContain(s);
    t.h.sim.faults.add({ kind: 'status', arg: 401, path: '/v1/videos/text2video', times: 1 });
    const kling = await check((await byKind('kling')).id);
    expect(kling.check).toMatchObject({ ok: false, error: { code: 'upstream_auth_error' } });
    expect(kling.text).not.toContain(DEFAULT_SIM_KEYS.klingAccessKey);
    const tests = (await audit(dash.id)).filter((a) => a.action === 'channel.test');
    expect(tests[0]!.detail).toEqual({ ok: false, code: 'upstream_error' });
  });

  it('the breaker state shows failing calls; a new key closes it', async () => {
    const dash = await byKind('dashscope');
    t.h.sim.faults.add({ kind: 'status', arg: 500, path: '/compatible-mode/v1/chat/completions' });
    try {
      for (let i = 0; i < 3; i++)
        expect(
          (
            await t.h.fetch('/v1/chat/completions', {
              method: 'POST',
              token: (await t.h.token()).secret,
              json: chatBody(),
            })
          ).status,
        ).toBe(502);
    } finally {
      t.h.sim.faults.clear();
    }
    const c = await one(dash.id);
    expect(c.breaker.state).toBe('open');
    expect(c.breaker.consecutive_failures).toBeGreaterThanOrEqual(5);
    expect(c.breaker.open_until).toBeGreaterThan(Date.now());
    expect(c.breaker.recent_failures).toHaveLength(5);
    expect(c.breaker.recent_failures.every((f) => f.code === 'upstream_error')).toBe(true);
    expect((await patch(dash.id, { api_key: DEFAULT_SIM_KEYS.dashscopeApiKey })).status).toBe(200);
    expect((await one(dash.id)).breaker).toMatchObject({ state: 'closed', consecutive_failures: 0 });
  });

  it('PATCH changes name, models, priority, weight, enabled, base URL and key; the key is write-only and takes effect at once', async () => {
    const dash = await byKind('dashscope');
    const { secret } = await t.h.token();
    const r = await patch(dash.id, {
      name: 'sim-dashscope-main',
      priority: 5,
      weight: 7,
      models: [CHAT, 'qwx-image-2.0'],
    });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({
      id: dash.id,
      name: 'sim-dashscope-main',
      priority: 5,
      weight: 7,
      models: [CHAT, 'qwx-image-2.0'],
    });
    expect(
      ((await (await t.h.fetch('/v1/models', { token: secret })).json()) as { data: Array<{ id: string }> }).data.map(
        (m) => m.id,
      ),
    ).not.toContain('text-embedding-v4');

    // A wrong key: the next call is refused by the upstream, the check says so; the key never shows.
    const wrong = 'sk-wrong-key-0000000000000000';
    const w = await patch(dash.id, { api_key: wrong });
    const wText = await w.text();
    expect(wText).not.toContain(wrong);
    expect((JSON.parse(wText) as ChannelView).keys.api_key).toBe('****0000');
    await expectB(
      await t.h.fetch('/v1/chat/completions', { method: 'POST', token: secret, json: chatBody() }),
      502,
      'upstream_auth_error',
    );
    expect((await check(dash.id)).check).toMatchObject({ ok: false, error: { code: 'upstream_auth_error' } });
    expect(
      (await patch(dash.id, { api_key: DEFAULT_SIM_KEYS.dashscopeApiKey, base_url: `${t.h.sim.url}/` })).status,
    ).toBe(200);
    expect((await one(dash.id)).base_url).toBe(t.h.sim.url);
    expect((await t.h.fetch('/v1/chat/completions', { method: 'POST', token: secret, json: chatBody() })).status).toBe(
      200,
    );

    expect((await patch(dash.id, { enabled: false })).status).toBe(200);
    expect((await one(dash.id)).status).toBe('disabled');
    expect(
      (await patch(dash.id, { enabled: true, models: null, name: dash.name, priority: 0, weight: 1 })).status,
    ).toBe(200);
    expect(await one(dash.id)).toMatchObject({ status: 'enabled', models: null });

    const updates = (await audit(dash.id)).filter((a) => a.action === 'channel.update');
    expect(JSON.stringify(updates)).not.toContain(wrong);
    expect(updates.some((u) => JSON.stringify(u.detail?.keys_replaced) === '["apiKey"]')).toBe(true);
    expect(
      updates.some((u) => (u.detail?.changes as Record<string, unknown> | undefined)?.priority !== undefined),
    ).toBe(true);
  });

  it("PATCH refuses unknown fields, the kind, the other kind's keys, bad values and a taken name; nothing changes", async () => {
    const dash = await byKind('dashscope');
    const kling = await byKind('kling');
    const before = await one(dash.id);
    const cases: Array<[string, unknown, number, string, string | undefined]> = [
      [dash.id, { status: 'disabled' }, 400, 'invalid_parameter', 'status'],
      [dash.id, { kind: 'kling' }, 400, 'invalid_parameter', 'kind'],
      [dash.id, { secret_key: 'x'.repeat(20) }, 400, 'invalid_parameter', 'secret_key'],
      [kling.id, { api_key: 'x'.repeat(20) }, 400, 'invalid_parameter', 'api_key'],
      [dash.id, { weight: 0 }, 400, 'invalid_parameter', 'weight'],
      [dash.id, { priority: null }, 400, 'invalid_parameter', 'priority'],
      [dash.id, { enabled: 'yes' }, 400, 'invalid_parameter', 'enabled'],
      [dash.id, { base_url: 'ftp://example.test' }, 400, 'invalid_parameter', 'base_url'],
      // A password in the URL would be shown in channel views and audit lines: keys go in the key fields.
      [dash.id, { base_url: 'http://user:secretpw@127.0.0.1:1/x' }, 400, 'invalid_parameter', 'base_url'],
      [dash.id, { models: ['wnx2.7-t2v-nope'] }, 400, 'invalid_parameter', 'models'],
      [kling.id, { models: [CHAT] }, 400, 'invalid_parameter', 'models'],
      [dash.id, { api_key: '' }, 400, 'missing_parameter', 'api_key'],
      [dash.id, {}, 400, 'invalid_request', undefined],
      [dash.id, { name: kling.name }, 409, 'conflict', 'name'],
      ['ch_nope', { weight: 2 }, 404, 'not_found', undefined],
    ];
    for (const [id, json, status, code, param] of cases) {
      const e = await expectB(await patch(id, json), status, code);
      expect(e.error.param).toBe(param);
    }
    const after = await one(dash.id);
    expect({ ...after, breaker: null, updated_at: null }).toEqual({ ...before, breaker: null, updated_at: null });
  });
});

describe('every channel of a model disabled', () => {
  const t = useHarness();
  const setAll = async (enabled: boolean) => {
    const list = ((await (await t.h.admin('/admin/channels')).json()) as { data: ChannelView[] }).data;
    for (const c of list)
      expect((await t.h.admin(`/admin/channels/${c.id}`, { method: 'PATCH', json: { enabled } })).status).toBe(200);
  };

  it("clients get 503 no_channel in their family's shape on chat, images, /v1/videos and family A; /v1/models leaves the models out", async () => {
    const { secret } = await t.h.token();
    const limited = await t.h.token({ models: ['qwx-image-2.0'] });
    await setAll(false);
    try {
      const chat = await expectB(
        await t.h.fetch('/v1/chat/completions', { method: 'POST', token: secret, json: chatBody() }),
        503,
        'no_channel',
      );
      expect(chat.error.message).toContain(`'${CHAT}' is temporarily unavailable`);
      await expectB(
        await t.h.fetch('/v1/images/generations', {
          method: 'POST',
          token: secret,
          json: { model: 'qwx-image-2.0', prompt: 'a bird' },
        }),
        503,
        'no_channel',
      );
      await expectB(
        await t.h.fetch('/v1/videos', {
          method: 'POST',
          token: secret,
          json: { model: 'wnx2.7-t2v', prompt: 'a clip', seconds: 2 },
        }),
        503,
        'no_channel',
      );
      const a = await expectA(
        await t.h.fetch('/vidx/v1/videos/text2video', { method: 'POST', token: secret, json: { prompt: 'a cat' } }),
        503,
        5001,
      );
      expect(a.message).toContain('temporarily unavailable');
      // Through the official SDK: a 503 it can tell from an unknown model.
      const e = await openaiClient(t.h, secret)
        .chat.completions.create(chatBody())
        .catch((x: unknown) => x);
      expect(e).toMatchObject({ status: 503, code: 'no_channel' });
      // Nothing callable is listed; a model named by path is unknown there, as in the list.
      expect(((await (await t.h.fetch('/v1/models', { token: secret })).json()) as { data: unknown[] }).data).toEqual(
        [],
      );
      await expectB(await t.h.fetch(`/v1/models/${CHAT}`, { token: secret }), 404, 'model_not_found');
      // Models the catalogue does not know, or the token may not use, stay 404.
      await expectB(
        await t.h.fetch('/v1/chat/completions', {
          method: 'POST',
          token: secret,
          json: { ...chatBody(), model: 'no-such-model' },
        }),
        404,
        'model_not_found',
      );
      await expectB(
        await t.h.fetch('/v1/chat/completions', { method: 'POST', token: limited.secret, json: chatBody() }),
        404,
        'model_not_found',
      );
    } finally {
      await setAll(true);
    }
    expect((await t.h.fetch('/v1/chat/completions', { method: 'POST', token: secret, json: chatBody() })).status).toBe(
      200,
    );
  });

  it('a model no channel is configured for stays 404 (only a disabled channel makes it 503)', async () => {
    const { secret } = await t.h.token();
    const list = ((await (await t.h.admin('/admin/channels')).json()) as { data: ChannelView[] }).data;
    const dash = list.find((c) => c.kind === 'dashscope')!;
    expect(
      (await t.h.admin(`/admin/channels/${dash.id}`, { method: 'PATCH', json: { models: ['qwx-image-2.0'] } })).status,
    ).toBe(200);
    try {
      await expectB(
        await t.h.fetch('/v1/chat/completions', { method: 'POST', token: secret, json: chatBody() }),
        404,
        'model_not_found',
      );
    } finally {
      expect((await t.h.admin(`/admin/channels/${dash.id}`, { method: 'PATCH', json: { models: null } })).status).toBe(
        200,
      );
    }
  });
});
