// Tenant isolation by model: a token's allow-list admits no other model by any name (case, spaces, dated snapshots,
// upstream names, hidden billing entries), nothing reaches the upstream, and /v1/models shows only what it allows.
import { beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.ts';
import { FAST_TASK_ENV } from '../support/videos.ts';
import { tenantCalls } from '../support/tenant-calls.ts';

const T2V = '/vidx/v1/videos/text2video';
const ME = '/vidx/v1/videos/multi-elements';

let A: { id: string; secret: string };
const t = useHarness({
  env: { ...FAST_TASK_ENV, TOLLWAY_CALLBACK_TICK_MS: '40', TOLLWAY_ALLOW_PRIVATE_NETWORK: '1' },
  sim: { taskDurationMs: 200 },
  configure: (c) => {
    c.publicUrl = 'http://gateway.example.test';
  },
});
beforeAll(async () => {
  A = await t.h.token({ name: 'tenant-a' });
});
const { get, post, callsSince } = tenantCalls(t);

describe('allow-listed tokens reach no other model by any name', () => {
  const cases: Array<{ allow: string[]; path: string; body: (m: string) => unknown; names: string[] }> = [
    {
      allow: ['qwx3.7-plus'],
      path: '/v1/chat/completions',
      body: (m) => ({ model: m, messages: [{ role: 'user', content: 'hi' }] }),
      names: [
        'qwx3-vl-plus',
        'QWX3-VL-PLUS',
        ' qwx3-vl-plus',
        'qwx3-vl-plus ',
        'qwx3-vl-plus-2025-01-01',
        'qwx3-vl-plus-20250101',
        'qwx3.7-plus/../qwx3-vl-plus',
        'vidx-v1-6-multi-elements',
        'qwen3-vl-plus',
      ],
    },
    {
      allow: ['wnx2.7-i2v'],
      path: '/v1/videos',
      body: (m) => ({ model: m, prompt: 'x', seconds: 2 }),
      names: [
        'wnx2.7-t2v',
        'wnx2.7-t2v-20250101',
        'wnx2.7-t2v-2025-01-01',
        'WNX2.7-T2V',
        'wan2.7-t2v',
        'hhx-1.1-t2v',
        'vidx-v1',
      ],
    },
    {
      allow: ['vidx-v1'],
      path: T2V,
      body: (m) => ({ model_name: m, prompt: 'x' }),
      names: [
        'vidx-v2-5',
        'vidx-v2-5-turbo',
        'vidx-v1-6',
        'vidx-v1-6-multi-elements',
        'kling-v1-6',
        'kling-v2-5-turbo',
        'VIDX-V1-6',
        'vidx-v1-6-20250101',
        'vidx-v3-omni',
      ],
    },
    {
      allow: ['vidx-v1'],
      path: '/vidx/v1/videos/omni-video',
      body: (m) => ({ model_name: m, prompt: 'x' }),
      names: ['vidx-v3-omni', 'vidx-video-o1', 'kling-video-o1', 'kling-v3-omni'],
    },
  ];
  for (const c of cases) {
    it(`a token allowed ${c.allow.join(',')} cannot reach other models on ${c.path}`, async () => {
      const tok = await t.h.token({ models: c.allow });
      const since = Date.now();
      for (const name of c.names) {
        const r = await post(c.path, tok.secret, c.body(name));
        expect(r.status, `${name} → ${r.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
        expect(r.status, name).toBeLessThan(500);
      }
      expect(callsSince(since), 'nothing may reach the upstream').toEqual([]);
    });
  }

  it('the multi-element editor (billed as the hidden vidx-v1-6-multi-elements) needs vidx-v1-6 on the allow-list', async () => {
    for (const allow of [['vidx-v1'], ['vidx-v1-6-multi-elements'], ['vidx-v2-5']]) {
      const tok = await t.h.token({ models: allow });
      const since = Date.now();
      const r = await post(`${ME}/init-selection`, tok.secret, { video_url: 'https://cdn.example.com/clip.mp4' });
      expect(r.status, allow.join()).toBe(404);
      expect(callsSince(since)).toEqual([]);
    }
  });

  it('an allow-list naming a historical alias admits the model under both names (stored canonical)', async () => {
    const tok = await t.h.token({ models: ['vidx-v2-5'] });
    for (const name of ['vidx-v2-5', 'vidx-v2-5-turbo']) {
      const r = await post(T2V, tok.secret, { model_name: name, prompt: 'alias allowed' });
      expect(r.status, `${name} → ${r.text.slice(0, 200)}`).toBe(200);
    }
    const other = await post(T2V, tok.secret, { model_name: 'vidx-v1', prompt: 'not allowed' });
    expect(other.status).toBe(404);
  });

  it('/v1/models and /v1/models/:id show only the allowed models (hidden entries never)', async () => {
    const tok = await t.h.token({ models: ['qwx3.7-plus'] });
    const list = JSON.parse((await get('/v1/models', tok.secret)).text) as { data: Array<{ id: string }> };
    expect(list.data.map((m) => m.id)).toEqual(['qwx3.7-plus']);
    expect((await get('/v1/models/qwx3-vl-plus', tok.secret)).status).toBe(404);
    const all = JSON.parse((await get('/v1/models', A.secret)).text) as { data: Array<{ id: string }> };
    expect(all.data.map((m) => m.id)).not.toContain('vidx-v1-6-multi-elements');
    expect((await get('/v1/models/vidx-v1-6-multi-elements', A.secret)).status).toBe(404);
  });
});
