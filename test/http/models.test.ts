// GET /v1/models and model visibility: token allow-list AND an enabled channel serving the model.
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SIM_KEYS } from '../../simulator/index.ts';
import { ensureChannel } from '../../src/core/admin/channels.ts';
import { useHarness } from '../support/harness.ts';
import type { BErr } from '../support/error-shapes.ts';

type ModelList = { object: string; data: Array<{ id: string; object: string; created: number; owned_by: string }> };

// Only a DashScope channel: every Kling (vidx) model has no channel and must be invisible.
const t = useHarness({ channels: false });
beforeAll(async () => {
  await ensureChannel(t.h.gw.deps, 'only-dashscope', 'dashscope', t.h.sim.url, {
    apiKey: DEFAULT_SIM_KEYS.dashscopeApiKey,
  });
});

const list = async (token: string) => {
  const r = await t.h.fetch('/v1/models', { token });
  expect(r.status).toBe(200);
  return (await r.json()) as ModelList;
};

async function notFound(token: string, model: string) {
  const r = await t.h.fetch(`/v1/models/${encodeURIComponent(model)}`, { token });
  expect(r.status, model).toBe(404);
  const body = (await r.json()) as BErr;
  expect(body.error.code, model).toBe('model_not_found');
  return body;
}

describe('/v1/models', () => {
  it('OpenAI list shape; only models an enabled channel serves', async () => {
    const { secret } = await t.h.token();
    const l = await list(secret);
    expect(l.object).toBe('list');
    const ids = l.data.map((m) => m.id);
    expect(ids).toContain('qwx3.7-plus');
    expect(ids).toContain('hhx-1.1-t2v');
    expect(ids.some((id) => id.startsWith('vidx-'))).toBe(false);
    for (const m of l.data) {
      expect(Object.keys(m).sort()).toEqual(['created', 'id', 'object', 'owned_by']);
      expect(m.object).toBe('model');
      expect(Number.isInteger(m.created)).toBe(true);
    }
    // the hidden internal edit entry is never listed
    expect(ids).not.toContain('vidx-v1-6-multi-elements');
  });

  it('the token allow-list shapes the list', async () => {
    const { secret } = await t.h.token({ models: ['text-embedding-v4', 'qwx-image-2.0', 'vidx-v1'] });
    // vidx-v1 is allowed but has no channel → not listed
    expect((await list(secret)).data.map((m) => m.id)).toEqual(['text-embedding-v4', 'qwx-image-2.0']);
  });

  it('GET /v1/models/{id}: a visible model answers 200 in the model shape', async () => {
    const { secret } = await t.h.token({ models: ['qwx3.7-plus'] });
    const r = await t.h.fetch('/v1/models/qwx3.7-plus', { token: secret });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({
      id: 'qwx3.7-plus',
      object: 'model',
      created: expect.any(Number),
      owned_by: 'qwx',
    });
  });

  it('model_not_found (404) for unknown, not-allowed, no-channel and hidden models alike', async () => {
    const { secret } = await t.h.token({ models: ['qwx3.7-plus', 'vidx-v1'] });
    const unknown = await notFound(secret, 'gpt-4o');
    await notFound(secret, 'qwx3-vl-plus'); // exists, not in the allow-list
    await notFound(secret, ' '); // a blank id names no model: 404 as well, not "model is required"
    await notFound(secret, 'vidx-v1'); // allowed, but no enabled channel serves it
    const open = (await t.h.token()).secret;
    await notFound(open, 'vidx-v1-6-multi-elements'); // internal entry
    await notFound(open, 'qwen3.7-plus'); // an upstream name is not a public name
    expect(unknown.error.message).toContain("'gpt-4o'");
  });

  it('aliases normalise; dated snapshots resolve only where the catalogue allows them', async () => {
    const open = (await t.h.token()).secret;
    const snap = await t.h.fetch('/v1/models/wnx2.7-t2v-2026-01-15', { token: open });
    expect(snap.status).toBe(200);
    expect(((await snap.json()) as { id: string }).id).toBe('wnx2.7-t2v-2026-01-15');
    await notFound(open, 'hhx-1.1-t2v-2026-01-15');
    // an allow-list naming the base model admits its snapshots
    const base = (await t.h.token({ models: ['wnx2.7-i2v'] })).secret;
    expect((await t.h.fetch('/v1/models/wnx2.7-i2v-20260115', { token: base })).status).toBe(200);
  });
});

describe('visibility follows channel changes at once', () => {
  it('adding a Kling channel makes vidx models visible; disabling it hides them again', async () => {
    const { secret } = await t.h.token({ models: ['vidx-v1', 'vidx-v2-5-turbo'] });
    expect((await list(secret)).data).toEqual([]);
    const add = await t.h.admin('/admin/channels', {
      method: 'POST',
      json: {
        name: 'kling-late',
        kind: 'kling',
        base_url: t.h.sim.url,
        access_key: DEFAULT_SIM_KEYS.klingAccessKey,
        secret_key: DEFAULT_SIM_KEYS.klingSecretKey,
      },
    });
    expect(add.status).toBe(201);
    expect((await list(secret)).data.map((m) => m.id)).toEqual(['vidx-v1', 'vidx-v2-5-turbo']);
    // historical alias is accepted and shown under its canonical name
    const alias = await t.h.fetch('/v1/models/vidx-v2-5', { token: secret });
    expect(alias.status).toBe(200);
    expect(((await alias.json()) as { id: string }).id).toBe('vidx-v2-5-turbo');
    const { id } = (await add.json()) as { id: string };
    expect((await t.h.admin(`/admin/channels/${id}/disable`, { method: 'POST' })).status).toBe(200);
    expect((await list(secret)).data).toEqual([]);
    await notFound(secret, 'vidx-v1');
  });

  it('a channel limited to some models serves only those', async () => {
    const add = await t.h.admin('/admin/channels', {
      method: 'POST',
      json: {
        name: 'kling-v3-only',
        kind: 'kling',
        base_url: t.h.sim.url,
        access_key: DEFAULT_SIM_KEYS.klingAccessKey,
        secret_key: DEFAULT_SIM_KEYS.klingSecretKey,
        models: ['vidx-v3'],
      },
    });
    expect(add.status).toBe(201);
    const { secret } = await t.h.token();
    const vidx = (await list(secret)).data.map((m) => m.id).filter((id) => id.startsWith('vidx-'));
    expect(vidx).toEqual(['vidx-v3']);
  });
});
