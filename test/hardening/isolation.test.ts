// Tenant isolation: a token never sees, downloads, lists, edits or gets callbacks for another token's tasks,
// sessions or logs; admin endpoints refuse client tokens. "Another token's X" and "no such X" must look exactly alike
// (no existence oracle). An allow-listed token reaching no other model: model-allow-lists.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { flushWriters } from '../support/store-rows.ts';
import { FAST_TASK_ENV, waitTerminal } from '../support/videos.ts';
import type { BErr } from '../support/error-shapes.ts';
import { tenantCalls } from '../support/tenant-calls.ts';

const T2V = '/vidx/v1/videos/text2video';
const ME = '/vidx/v1/videos/multi-elements';

let A: { id: string; secret: string };
let B: { id: string; secret: string };
let rx: Receiver;
/** Every callback the receiver got, as `<path> <body>`. */
const callbacks = () => rx.hits.map((x) => `${x.url} ${x.body}`);

beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(async () => rx?.close());
const t = useHarness({
  env: { ...FAST_TASK_ENV, TOLLWAY_CALLBACK_TICK_MS: '40', TOLLWAY_ALLOW_PRIVATE_NETWORK: '1' },
  sim: { taskDurationMs: 200 },
  configure: (c) => {
    c.publicUrl = 'http://gateway.example.test';
  },
});
beforeAll(async () => {
  A = await t.h.token({ name: 'tenant-a' });
  B = await t.h.token({ name: 'tenant-b' });
});

const { get, post } = tenantCalls(t);
/** Strip the per-request parts so a "foreign" and an "unknown" answer can be compared. */
const shape = (r: { status: number; text: string }, id: string, other: string) => ({
  status: r.status,
  body: r.text
    .replace(/req_[0-9a-f]+/g, 'REQ')
    .split(id)
    .join('ID')
    .split(other)
    .join('ID'),
});

describe('family B videos', () => {
  let videoA: string;
  beforeAll(async () => {
    const r = await post('/v1/videos', A.secret, { model: 'wnx2.7-t2v', prompt: 'tenant a', seconds: 2 });
    videoA = (JSON.parse(r.text) as { id: string }).id;
    expect((await waitTerminal(t.h, A.secret, videoA)).status).toBe('completed');
  });

  it("B cannot retrieve or download A's video; the answer equals the one for an unknown id", async () => {
    const unknown = `video_${'0'.repeat(32)}`;
    for (const suffix of ['', '/content']) {
      const foreign = await get(`/v1/videos/${videoA}${suffix}`, B.secret);
      const none = await get(`/v1/videos/${unknown}${suffix}`, B.secret);
      expect(foreign.status).toBe(404);
      expect(shape(foreign, videoA, unknown)).toEqual(shape(none, unknown, videoA));
    }
    expect((await get(`/v1/videos/${videoA}/content`, A.secret)).status).toBe(200);
  });

  it("B's list never contains A's video, also when paging \"after\" A's id", async () => {
    for (const q of ['', '?limit=100']) {
      const r = await get(`/v1/videos${q}`, B.secret);
      expect(r.status).toBe(200);
      expect(r.text).not.toContain(videoA);
    }
    // A's id as B's cursor is refused exactly like an id that does not exist.
    const foreign = await get(`/v1/videos?after=${videoA}`, B.secret);
    const unknown = await get('/v1/videos?after=video_00000000000000000000000000000000', B.secret);
    expect(foreign.status).toBe(400);
    expect(unknown.status).toBe(400);
    expect(foreign.text).not.toContain(videoA.slice(6));
    expect((JSON.parse(foreign.text) as BErr).error.code).toBe((JSON.parse(unknown.text) as BErr).error.code);
    expect((await get('/v1/videos', A.secret)).text).toContain(videoA);
  });

  it("A's family B video id is not reachable through the family A query paths (and vice versa)", async () => {
    expect((await get(`${T2V}/${videoA}`, A.secret)).status).toBe(404);
    const tok = await post(T2V, A.secret, { prompt: 'a' });
    const taskA = (tok.json!.data as { task_id: string }).task_id;
    expect((await get(`/v1/videos/${taskA}`, A.secret)).status).toBe(404);
  });
});

describe('family A tasks, external ids, sessions and callbacks', () => {
  let taskA: string;
  beforeAll(async () => {
    const r = await post(T2V, A.secret, {
      prompt: 'tenant a task',
      external_task_id: 'order-42',
      callback_url: `${rx.url}/a`,
    });
    taskA = (r.json!.data as { task_id: string }).task_id;
    for (let i = 0; i < 200; i++) {
      const q = JSON.parse((await get(`${T2V}/${taskA}`, A.secret)).text) as { data: { task_status: string } };
      if (q.data.task_status === 'succeed') break;
      await new Promise((res) => setTimeout(res, 25));
    }
  });

  it("B cannot query A's task by task id or external_task_id; the same answer as for an unknown id", async () => {
    const unknown = `task_${'0'.repeat(32)}`;
    for (const id of [taskA, 'order-42']) {
      const foreign = await get(`${T2V}/${id}`, B.secret);
      const none = await get(`${T2V}/${unknown}`, B.secret);
      expect(foreign.status).toBe(404);
      expect(shape(foreign, id, unknown)).toEqual(shape(none, unknown, id));
    }
    expect((await get(`${T2V}/order-42`, A.secret)).status).toBe(200);
  });

  it("B's lists (text2video, multi-elements, omni) never show A's tasks", async () => {
    for (const path of [T2V, ME, '/vidx/v1/videos/omni-video']) {
      const r = await get(`${path}?pageNum=1&pageSize=500`, B.secret);
      expect(r.status).toBe(200);
      expect(r.text).not.toContain(taskA);
      expect(r.text).not.toContain('order-42');
    }
  });

  it("B reusing A's external_task_id gets its own new task (never A's), and each callback goes only to its owner", async () => {
    const r = await post(T2V, B.secret, {
      prompt: 'tenant b task',
      external_task_id: 'order-42',
      callback_url: `${rx.url}/b`,
    });
    expect(r.status).toBe(200);
    const taskB = (r.json!.data as { task_id: string }).task_id;
    expect(taskB).not.toBe(taskA);
    for (let i = 0; i < 300; i++) {
      if (callbacks().some((b) => b.startsWith('/a ')) && callbacks().some((b) => b.startsWith('/b '))) break;
      await get(`${T2V}/${taskB}`, B.secret);
      await new Promise((res) => setTimeout(res, 25));
    }
    const toA = callbacks().filter((b) => b.startsWith('/a '));
    const toB = callbacks().filter((b) => b.startsWith('/b '));
    expect(toA.length).toBeGreaterThan(0);
    expect(toB.length).toBeGreaterThan(0);
    for (const b of toA) expect(b).not.toContain(taskB);
    for (const b of toB) expect(b).not.toContain(taskA);
  });

  it("a forged upstream callback address (A's task id with a wrong or borrowed tag) is refused", async () => {
    const rows = await t.h.store.db.selectFrom('tasks').select(['id']).where('token_id', '=', B.id).execute();
    const bId = rows[0]!.id;
    // B's genuine callback address (the tag the gateway gave the upstream for B's task).
    const sent = t.h.sim
      .requestsTo('/v1/videos/text2video')
      .filter((x) => x.method === 'POST')
      .map((x) => (x.body as { callback_url?: string }).callback_url ?? '');
    const bRef = sent
      .find((u) => u.includes(`/${bId}.`))!
      .split('/')
      .pop()!;
    const bTag = bRef.slice(bRef.lastIndexOf('.') + 1);
    for (const ref of [`${taskA}.${bTag}`, `${taskA}.${'0'.repeat(bTag.length)}`, taskA, `${taskA}.`]) {
      const r = await t.h.fetch(`/vidx/callbacks/kling/${ref}`, {
        method: 'POST',
        json: { task_id: 'x', task_status: 'failed' },
      });
      expect(r.status, ref).toBe(404);
    }
  });

  it("sessions: B cannot use, preview, clear, edit from or delete selections in A's session", async () => {
    const init = await post(`${ME}/init-selection`, A.secret, { video_url: 'https://cdn.example.com/clip.mp4' });
    const sid = (init.json!.data as { session_id: string }).session_id;
    const before = t.h.sim.recorded.filter((r) => r.method === 'POST').length;
    for (const [path, body] of [
      [`${ME}/add-selection`, { session_id: sid, frame_index: 0, points: [{ x: 0.5, y: 0.5 }] }],
      [`${ME}/delete-selection`, { session_id: sid, frame_index: 0, points: [{ x: 0.5, y: 0.5 }] }],
      [`${ME}/clear-selection`, { session_id: sid }],
      [`${ME}/preview-selection`, { session_id: sid }],
      [ME, { session_id: sid, edit_mode: 'removal', prompt: 'x' }],
    ] as const) {
      const r = await post(path, B.secret, body);
      expect(r.status, path).toBe(404);
      expect(r.json).toMatchObject({ data: null });
    }
    expect(t.h.sim.recorded.filter((r) => r.method === 'POST').length).toBe(before);
    // B cannot start a session from A's produced video either.
    const q = JSON.parse((await get(`${T2V}/${taskA}`, A.secret)).text) as {
      data: { task_result: { videos: Array<{ id: string }> } };
    };
    const vid = q.data.task_result.videos[0]!.id;
    expect((await post(`${ME}/init-selection`, B.secret, { video_id: vid })).status).toBe(404);
  });
});

describe('logs, ledger and admin endpoints refuse client tokens', () => {
  const ADMIN: Array<[string, string]> = [
    ['GET', '/admin/tokens'],
    ['POST', '/admin/tokens'],
    ['GET', '/admin/channels'],
    ['POST', '/admin/channels'],
    ['GET', '/admin/logs'],
    ['GET', '/admin/ledger'],
    ['GET', '/admin/bills'],
    ['GET', '/admin/audit'],
    ['GET', '/admin/prices'],
    ['PUT', '/admin/prices/qwx3.7-plus'],
  ];
  for (const [method, path] of ADMIN) {
    it(`${method} ${path} with a client token → refused, nothing disclosed`, async () => {
      for (const headers of [
        { authorization: `Bearer ${A.secret}` },
        { 'x-api-key': A.secret },
        {} as Record<string, string>,
      ]) {
        const r = await t.h.fetch(path, {
          method,
          headers,
          ...(method === 'GET' ? {} : { json: { name: 'x', kind: 'dashscope' } }),
        });
        expect([401, 403]).toContain(r.status);
        const text = await r.text();
        expect(text).not.toContain(B.id);
        expect(text).not.toContain('tenant-b');
      }
    });
  }

  it('the admin key still works (the refusals above are about the caller, not the route)', async () => {
    expect((await t.h.admin('/admin/logs')).status).toBe(200);
  });

  it("request-log rows carry only the caller's token id (no cross-tenant attribution)", async () => {
    await flushWriters(t.h);
    const rows = await t.h.store.db
      .selectFrom('request_log')
      .select(['token_id', 'endpoint'])
      .where('endpoint', 'like', '%text2video%')
      .execute();
    expect(rows.every((r) => r.token_id === A.id || r.token_id === B.id || r.token_id === null)).toBe(true);
  });
});
