// Failover across two upstream accounts (two simulators, two channels per vendor) and the circuit breaker:
// safe calls move to the backup on 5xx/timeouts/connect errors; connect-only calls (images, video and family
// A task creation) move only when the connection was never made; a failing channel is taken out of rotation.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../simulator/index.ts';
import { DEFAULT_SIM_KEYS } from '../../simulator/index.ts';
import { createChannel } from '../../src/core/admin/channels.ts';
import { CircuitBreakers } from '../../src/routing/circuit-breaker.ts';
import { expectFamilyBError, expectNoLeak } from '../support/error-shapes.ts';
import { postJson, useHarness } from '../support/harness.ts';
import { flushWriters, ledgerOfRequest, ledgerOfTask } from '../support/store-rows.ts';
import { DEAD_URL, secondUpstream } from '../support/upstreams.ts';
import { FAST_TASK_ENV, waitTerminal } from '../support/videos.ts';
import { waitForFamilyATask } from '../support/vidx.ts';

const t = useHarness({
  env: { ...FAST_TASK_ENV, TOLLWAY_UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '600' },
  sim: { taskDurationMs: 250 },
});
let backup: { sim: Simulator; close(): Promise<void> };
const CHAT = '/compatible-mode/v1/chat/completions';
const IMG = 'multimodal-generation/generation';

beforeAll(async () => {
  backup = await secondUpstream(t.h);
});
afterAll(async () => backup?.close());
afterEach(() => {
  t.h.sim.faults.clear();
  backup.sim.faults.clear();
  t.h.gw.deps.breakers = new CircuitBreakers();
});

const post = (path: string, json: unknown) => postJson(t.h, t.token, path, json);
const chat = (stream = false) => ({ model: 'qwx3.7-plus', stream, messages: [{ role: 'user', content: 'hello' }] });

describe('safe calls fail over to the backup account', () => {
  for (const fault of [
    { kind: 'status', arg: 500 },
    { kind: 'status', arg: 503 },
    { kind: 'status', arg: 429 },
  ] as const) {
    it(`chat: primary answers ${fault.kind}${'arg' in fault ? ` ${fault.arg}` : ''} → served by the backup, charged once`, async () => {
      t.h.sim.faults.add({ ...fault, path: CHAT });
      const b = backup.sim.requestsTo(CHAT).length;
      const r = await post('/v1/chat/completions', chat());
      expect(r.status).toBe(200);
      expect(backup.sim.requestsTo(CHAT).length).toBe(b + 1);
      expect(await ledgerOfRequest(t.h, r.rid!)).toHaveLength(1);
    });
  }

  // The upstream got the whole request and gave no answer that declines it: it may be doing the work (and billing
  // it), so the call is not sent to another account.
  for (const fault of [
    { kind: 'timeout', code: 'upstream_timeout', status: 504 },
    { kind: 'reset', code: 'upstream_error', status: 502 },
  ] as const) {
    it(`chat: primary ${fault.kind} after the request was sent → not sent again, ${fault.status} ${fault.code}, nothing charged`, async () => {
      t.h.sim.faults.add({ kind: fault.kind, path: CHAT });
      const a = t.h.sim.requestsTo(CHAT).length;
      const b = backup.sim.requestsTo(CHAT).length;
      const r = await post('/v1/chat/completions', chat());
      expect(r.status).toBe(fault.status);
      expectFamilyBError(r.text, r.rid, fault.code);
      expect(t.h.sim.requestsTo(CHAT).length + backup.sim.requestsTo(CHAT).length).toBe(a + b + 1);
      expect(await ledgerOfRequest(t.h, r.rid!)).toHaveLength(0);
    });
  }

  // The upstream answered 200: it did the work (and may bill it), however unusable the answer. Never sent again.
  for (const [path, upstream, body] of [
    ['/v1/chat/completions', CHAT, chat()],
    ['/v1/embeddings', '/compatible-mode/v1/embeddings', { model: 'text-embedding-v4', input: 'x' }],
    [
      '/v1/messages',
      '/apps/anthropic/v1/messages',
      { model: 'qwx3.7-plus', max_tokens: 32, messages: [{ role: 'user', content: 'x' }] },
    ],
    ['/v1/responses', '/compatible-mode/v1/responses', { model: 'qwx3.7-plus', input: 'x' }],
    [
      '/v1/chat/completions',
      'multimodal-generation/generation',
      {
        model: 'qwx3.7-plus',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'x' },
              { type: 'image_url', image_url: { url: 'https://img.example.com/a.png' } },
            ],
          },
        ],
      },
    ],
  ] as const) {
    it(`${path} (${upstream}): primary answers 200 with malformed JSON → 502 upstream_error, never sent to the backup, nothing charged`, async () => {
      t.h.sim.faults.add({ kind: 'malformed', path: upstream });
      const a = t.h.sim.requestsTo(upstream).length;
      const b = backup.sim.requestsTo(upstream).length;
      const r = await post(path, body);
      expect(r.status).toBe(502);
      expect(t.h.sim.requestsTo(upstream).length).toBe(a + 1);
      expect(backup.sim.requestsTo(upstream).length).toBe(b);
      expect(await ledgerOfRequest(t.h, r.rid!)).toHaveLength(0);
    });
  }

  it('streaming chat: a primary failure before the first byte → the backup streams it, charged once', async () => {
    t.h.sim.faults.add({ kind: 'status', arg: 500, path: CHAT });
    const r = await post('/v1/chat/completions', chat(true));
    expect(r.status).toBe(200);
    expect(r.text).toContain('[DONE]');
    expect(r.text).not.toMatch(/"error"/);
    expect(await ledgerOfRequest(t.h, r.rid!)).toHaveLength(1);
  });

  it('embeddings, responses and messages fail over too', async () => {
    t.h.sim.faults.add({ kind: 'status', arg: 500 });
    const cases: Array<[string, unknown]> = [
      ['/v1/embeddings', { model: 'text-embedding-v4', input: 'x' }],
      [
        '/v1/responses',
        { model: 'qwx3.7-plus', input: [{ role: 'user', content: [{ type: 'input_text', text: 'x' }] }] },
      ],
      ['/v1/messages', { model: 'qwx3.7-plus', max_tokens: 32, messages: [{ role: 'user', content: 'x' }] }],
    ];
    for (const [path, body] of cases) {
      const r = await post(path, body);
      expect(r.status, path).toBe(200);
      expect(await ledgerOfRequest(t.h, r.rid!)).toHaveLength(1);
    }
  });

  it('both accounts failing → one error in the family shape, nothing charged', async () => {
    t.h.sim.faults.add({ kind: 'status', arg: 500, path: CHAT });
    backup.sim.faults.add({ kind: 'status', arg: 500, path: CHAT });
    const r = await post('/v1/chat/completions', chat());
    expect(r.status).toBe(502);
    expectFamilyBError(r.text, r.rid, 'upstream_error');
    expectNoLeak(t.h, r.text, [backup.sim]);
    expect(await ledgerOfRequest(t.h, r.rid!)).toHaveLength(0);
  });
});

describe('circuit breaker', () => {
  it('after 5 consecutive failures the primary is taken out: later calls go straight to the backup', async () => {
    t.h.sim.faults.add({ kind: 'status', arg: 500, path: CHAT });
    const p0 = t.h.sim.requestsTo(CHAT).length;
    for (let i = 0; i < 9; i++) {
      const r = await post('/v1/chat/completions', chat());
      expect(r.status).toBe(200);
    }
    // 5 failures open the circuit (threshold 5, cool-down 30 s): calls 6–9 never touch the primary.
    expect(t.h.sim.requestsTo(CHAT).length - p0).toBe(5);
    const primary = t.h.gw.deps.channels.all().find((c) => c.name === 'sim-dashscope')!;
    expect(t.h.gw.deps.breakers.isOpen(primary.id)).toBe(true);
  });

  it('a success closes it again (the primary is healthy → it serves)', async () => {
    const p0 = t.h.sim.requestsTo(CHAT).length;
    const r = await post('/v1/chat/completions', chat());
    expect(r.status).toBe(200);
    expect(t.h.sim.requestsTo(CHAT).length).toBe(p0 + 1);
  });
});

describe('connect-only calls: a request that may have been accepted is never sent twice', () => {
  it('images: primary 500 → 502 to the client, the backup is NOT asked', async () => {
    t.h.sim.faults.add({ kind: 'status', arg: 500, path: IMG });
    const b = backup.sim.requestsTo(IMG).length;
    const r = await post('/v1/images/generations', { model: 'qwx-image-2.0', prompt: 'cat' });
    expect(r.status).toBe(502);
    expect(backup.sim.requestsTo(IMG).length).toBe(b);
    expect(await ledgerOfRequest(t.h, r.rid!)).toHaveLength(0);
  });

  it('video creation: primary reset after sending → error, the backup is NOT asked, hold released', async () => {
    t.h.sim.faults.add({ kind: 'reset', path: 'video-synthesis' });
    const b = backup.sim.requestsTo('video-synthesis').length;
    const r = await post('/v1/videos', { model: 'wnx2.7-t2v', prompt: 'x', seconds: 2 });
    expect(r.status).toBe(502);
    expect(backup.sim.requestsTo('video-synthesis').length).toBe(b);
  });

  it('video and family A creation: a primary 429 is a refusal (nothing accepted) → created on the backup', async () => {
    t.h.sim.faults.add({ kind: 'status', arg: 429, path: 'video-synthesis' });
    const b = backup.sim.requestsTo('video-synthesis').length;
    const r = await post('/v1/videos', { model: 'wnx2.7-t2v', prompt: 'refused then moved', seconds: 2 });
    expect(r.status, r.text).toBe(200);
    expect(backup.sim.requestsTo('video-synthesis').length).toBe(b + 1);
    expect(
      t.h.sim.requestsTo('video-synthesis').filter((x) => JSON.stringify(x.body).includes('refused then moved')),
    ).toHaveLength(1);

    t.h.sim.faults.add({ kind: 'status', arg: 429, path: '/v1/videos/text2video' });
    const posts = () => backup.sim.requestsTo('/v1/videos/text2video').filter((x) => x.method === 'POST').length;
    const kb = posts();
    const a = await post('/vidx/v1/videos/text2video', { prompt: 'refused then moved too' });
    expect(a.status, a.text).toBe(200);
    expect(posts()).toBe(kb + 1);
  });

  describe('with an unreachable primary account (connection refused)', () => {
    let deadIds: string[] = [];
    beforeAll(async () => {
      const d = await createChannel(t.h.gw.deps, {
        name: 'dead-dashscope',
        kind: 'dashscope',
        baseUrl: DEAD_URL,
        keys: { apiKey: DEFAULT_SIM_KEYS.dashscopeApiKey },
        models: null,
        priority: 100,
      });
      const k = await createChannel(t.h.gw.deps, {
        name: 'dead-kling',
        kind: 'kling',
        baseUrl: DEAD_URL,
        keys: { accessKey: DEFAULT_SIM_KEYS.klingAccessKey, secretKey: DEFAULT_SIM_KEYS.klingSecretKey },
        models: null,
        priority: 100,
      });
      deadIds = [d.id, k.id];
    });
    afterAll(async () => {
      for (const id of deadIds) await t.h.gw.deps.repos.channels.setStatus(id, 'disabled');
      await t.h.gw.deps.channels.reload();
    });

    it('images fail over (nothing was sent): 200, charged once', async () => {
      const r = await post('/v1/images/generations', { model: 'qwx-image-2.0', prompt: 'cat' });
      expect(r.status).toBe(200);
      expect(await ledgerOfRequest(t.h, r.rid!)).toHaveLength(1);
    });

    it('chat fails over: 200, charged once', async () => {
      const r = await post('/v1/chat/completions', chat(true));
      expect(r.status).toBe(200);
      expect(await ledgerOfRequest(t.h, r.rid!)).toHaveLength(1);
    });

    it('/v1/videos: the task is created on the next account, polled there, completed, charged once', async () => {
      const r = await post('/v1/videos', { model: 'wnx2.7-t2v', prompt: 'x', seconds: 2 });
      expect(r.status).toBe(200);
      const id = (JSON.parse(r.text) as { id: string }).id;
      const row = await t.h.store.db
        .selectFrom('tasks')
        .select('channel_id')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(deadIds).not.toContain(row.channel_id);
      expect((await waitTerminal(t.h, t.token, id)).status).toBe('completed');
      await flushWriters(t.h);
      const rows = await ledgerOfTask(t.h, id);
      expect(rows.map((x) => x.idempotency_key)).toEqual([`${id}:success`]);
    });

    it('family A text2video: created on the next account, completes, charged once', async () => {
      const r = await post('/vidx/v1/videos/text2video', { prompt: 'x' });
      expect(r.status).toBe(200);
      const id = (JSON.parse(r.text) as { data: { task_id: string } }).data.task_id;
      expect(await waitForFamilyATask(t.h, t.token, '/vidx/v1/videos/text2video', id, 'succeed')).toBe('succeed');
      await flushWriters(t.h);
      const rows = await ledgerOfTask(t.h, id);
      expect(rows.map((x) => x.idempotency_key)).toEqual([`${id}:success`]);
    });
  });
});
