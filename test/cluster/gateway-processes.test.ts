// Two real gateway processes (`tollway serve`) on one PostgreSQL schema and one Redis, with a third process,
// `tollway simulate`, as their upstream: the shape of deploy/compose.yaml without the containers. Proves, through
// the HTTP APIs, the store and the upstream's own record of what it was asked:
// a revoke through one instance is refused by the other at once; a price change through one applies to the
// other's charges; every task is polled by one instance at a time and charged once; an instance killed mid-task
// loses nothing. Runs in the PostgreSQL pass of the suite with Redis (TEST_DATABASE_URL, TEST_REDIS_URL).
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIM_KEYS, type RecordedRequest } from '../../simulator/index.ts';
import { ADMIN_KEY, SECRET } from '../support/harness.ts';
import { useServeProcesses, type ServeProcess } from '../support/serve-process.ts';
import { testDialect, useStore } from '../support/store.ts';
import { tempDir } from '../support/temp-dir.ts';

const redisUrl = process.env.TEST_REDIS_URL;
const onPostgres = testDialect() === 'postgres' && !!process.env.TEST_DATABASE_URL && !!redisUrl;

/**
 * How long a simulated upstream task runs: long enough that a loaded host still kills an instance before its tasks end.
 */
const TASK_MS = 4000;
/** The poll back-off's first step: a task is never asked about twice within it by a poller that holds it. */
const POLL_BASE_MS = 250;
/**
 * Short, so a killed instance's tasks are taken over within seconds; not shorter, as it is also the deadline of a
 * task's submission to the upstream (a submission slower than this is declared lost).
 */
const LEASE_MS = 3000;
const T2V = '/vidx/v1/videos/text2video';

/** Wait until `cond` holds, checking every 25 ms; throws naming `what` after `ms`. */
async function waitFor(cond: () => Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  if (!(await cond())) throw new Error(`never happened within ${ms} ms: ${what}`);
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
  rid: string | null;
}

async function call(
  base: string,
  path: string,
  init: { method?: string; token?: string; json?: unknown } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(base + path, {
    method: init.method ?? 'GET',
    headers,
    ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
  });
  const text = await r.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { text };
  }
  return { status: r.status, body, rid: r.headers.get('x-gateway-request-id') };
}

const admin = (base: string, path: string, init: { method?: string; json?: unknown } = {}) =>
  call(base, path, { ...init, token: ADMIN_KEY });

describe.runIf(onPostgres)(
  'two gateway processes on one PostgreSQL + Redis, the simulator as a process',
  { timeout: 60_000 },
  () => {
    const fresh = useStore();
    const start = useServeProcesses();
    const dirs = [tempDir('tollway-gw-a-'), tempDir('tollway-gw-b-')];
    let sim: ServeProcess;
    let a: ServeProcess;
    let b: ServeProcess;

    /** What the upstream was asked since it started (its own record, GET /__sim/requests). */
    const upstreamRequests = async (): Promise<RecordedRequest[]> =>
      ((await (await fetch(`${sim.base}/__sim/requests`)).json()) as { data: RecordedRequest[] }).data;

    /**
     * Upstream status queries, by the task they ask about: DashScope GET /api/v1/tasks/{id}, Kling GET
     * …/text2video/{id}.
     */
    const statusQueries = async (since = 0): Promise<Map<string, number[]>> => {
      const byTask = new Map<string, number[]>();
      for (const r of await upstreamRequests()) {
        if (r.method !== 'GET' || r.at < since) continue;
        const m = /^\/api\/v1\/tasks\/([^/?]+)$/.exec(r.path) ?? /^\/v1\/videos\/text2video\/([^/?]+)$/.exec(r.path);
        if (m) byTask.set(m[1]!, [...(byTask.get(m[1]!) ?? []), r.at]);
      }
      return byTask;
    };

    const ledgerOfTask = (taskId: string) =>
      fresh.store.db.selectFrom('ledger').select(['amount', 'model']).where('task_id', '=', taskId).execute();

    const newToken = async (base: string, name: string) => {
      const r = await admin(base, '/admin/tokens', { method: 'POST', json: { name, quota: 1_000_000_000 } });
      expect(r.status).toBe(201);
      return { id: r.body.id as string, secret: r.body.token as string };
    };

    const createVideo = async (base: string, token: string, prompt: string): Promise<string> => {
      const r = await call(base, '/v1/videos', {
        method: 'POST',
        token,
        json: { model: 'wnx2.7-t2v', prompt, seconds: 3, resolution: '720p' },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.id as string;
    };

    const createFamilyA = async (base: string, token: string, prompt: string): Promise<string> => {
      const r = await call(base, T2V, {
        method: 'POST',
        token,
        json: { model_name: 'vidx-v2-5', prompt, mode: 'pro', duration: '5' },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return (r.body.data as { task_id: string }).task_id;
    };

    /**
     * The task's public state, read through `base` (a read never asks the upstream here: TOLLWAY_TASK_REFRESH_STALE_MS
     * is long).
     */
    const videoStatus = async (base: string, token: string, id: string) =>
      (await call(base, `/v1/videos/${id}`, { token })).body.status as string;
    const familyAStatus = async (base: string, token: string, id: string) =>
      ((await call(base, `${T2V}/${id}`, { token })).body.data as { task_status: string }).task_status;

    const gatewayEnv = (dataDir: string): Record<string, string> => {
      const db = new URL(process.env.TEST_DATABASE_URL!);
      db.searchParams.set('options', `-c search_path=${fresh.pgSchema!}`);
      return {
        HOME: process.env.HOME ?? dataDir,
        TOLLWAY_DATA_DIR: dataDir,
        DATABASE_URL: db.toString(),
        REDIS_URL: redisUrl!,
        TOLLWAY_SECRET: SECRET,
        TOLLWAY_ADMIN_KEY: ADMIN_KEY,
        DASHSCOPE_BASE_URL: sim.base,
        DASHSCOPE_API_KEY: DEFAULT_SIM_KEYS.dashscopeApiKey,
        KLING_BASE_URL: sim.base,
        KLING_ACCESS_KEY: DEFAULT_SIM_KEYS.klingAccessKey,
        KLING_SECRET_KEY: DEFAULT_SIM_KEYS.klingSecretKey,
        // As in deploy/compose.yaml: the simulator's result files are on a private address, over plain http.
        TOLLWAY_RESULT_HOSTS: '127.0.0.1',
        TOLLWAY_ALLOW_PRIVATE_NETWORK: 'true',
        LOG_LEVEL: 'warn',
        // Only the bus can carry an admin change from one instance to the other (no periodic re-read).
        TOLLWAY_REFRESH_MS: '0',
        TOLLWAY_TASK_TICK_MS: '50',
        TOLLWAY_TASK_POLL_BASE_MS: String(POLL_BASE_MS),
        TOLLWAY_TASK_POLL_MAX_MS: '500',
        TOLLWAY_TASK_LEASE_MS: String(LEASE_MS),
        // A read never refreshes a task: every status query the upstream sees comes from a poller.
        TOLLWAY_TASK_REFRESH_STALE_MS: '600000',
        TOLLWAY_DRAIN_MS: '5000',
      };
    };

    it('the simulator process and two gateway processes start together on one empty schema', async () => {
      sim = await start({}, /SIMULATOR listening/, (port) => [
        'simulate',
        '--host',
        '127.0.0.1',
        '--port',
        String(port),
        '--public-url',
        `http://127.0.0.1:${port}`,
        '--task-ms',
        String(TASK_MS),
      ]);
      // Started at the same time: both provision the env channels and neither fails on the other's rows.
      [a, b] = await Promise.all([start(gatewayEnv(dirs[0]!)), start(gatewayEnv(dirs[1]!))]);
      for (const g of [a, b]) expect((await fetch(`${g.base}/healthz`)).status).toBe(200);
      const channels = await fresh.store.db
        .selectFrom('channels')
        .select(['name', 'status'])
        .where('status', '=', 'enabled')
        .orderBy('name')
        .execute();
      expect(channels.map((c) => c.name)).toEqual(['env-dashscope', 'env-kling']);
    });

    it('a token revoked through instance A is refused by instance B on the next request', async () => {
      const tok = await newToken(a.base, 'revoke-me');
      // B has validated (and cached) the token.
      expect((await call(b.base, '/v1/models', { token: tok.secret })).status).toBe(200);
      const chat = { model: 'qwx3.7-plus', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] };
      expect(
        (await call(b.base, '/v1/chat/completions', { method: 'POST', token: tok.secret, json: chat })).status,
      ).toBe(200);

      expect((await admin(a.base, `/admin/tokens/${tok.id}`, { method: 'DELETE' })).status).toBe(200);
      // No wait: the very next requests, well inside B's token-cache lifetime.
      const [models, chatAfter] = await Promise.all([
        call(b.base, '/v1/models', { token: tok.secret }),
        call(b.base, '/v1/chat/completions', { method: 'POST', token: tok.secret, json: chat }),
      ]);
      expect(models.status).toBe(401);
      expect(chatAfter.status).toBe(401);
      expect((chatAfter.body.error as { request_id: string }).request_id).toBe(chatAfter.rid);
    });

    it('a price change through instance A applies to the charges instance B makes, sync and task', async () => {
      const tok = await newToken(a.base, 'prices');
      const image = { model: 'qwx-image-2.0', prompt: 'a lighthouse', n: 1 };
      const before = await call(b.base, '/v1/images/generations', { method: 'POST', token: tok.secret, json: image });
      expect(before.status).toBe(200);

      expect(
        (
          await admin(a.base, '/admin/prices/qwx-image-2.0', {
            method: 'PUT',
            json: { price: { unit: 'image', perImage: 123_456 } },
          })
        ).status,
      ).toBe(200);
      const videoPrice = { unit: 'video-second', perSecond: { '720p': 777_000, '1080p': 1_500_000 }, basis: 'output' };
      expect(
        (await admin(a.base, '/admin/prices/wnx2.7-t2v', { method: 'PUT', json: { price: videoPrice } })).status,
      ).toBe(200);
      // B's own view of its live prices (it re-reads the catalogue when the bus tells it).
      await waitFor(
        async () =>
          ((await admin(b.base, '/admin/prices/wnx2.7-t2v')).body.price as { perSecond: Record<string, number> })
            .perSecond['720p'] === 777_000,
        'instance B sees the new video price',
        3000,
      );
      expect(((await admin(b.base, '/admin/prices/qwx-image-2.0')).body.price as { perImage: number }).perImage).toBe(
        123_456,
      );

      const after = await call(b.base, '/v1/images/generations', { method: 'POST', token: tok.secret, json: image });
      expect(after.status).toBe(200);
      // B's ledger (an admin read through B writes B's queued charges first).
      const amountOf = async (rid: string) =>
        ((await admin(b.base, `/admin/ledger?request_id=${rid}`)).body.data as Array<{ amount: number }>).map((l) =>
          Number(l.amount),
        );
      expect(await amountOf(before.rid!)).toEqual([200_000]);
      expect(await amountOf(after.rid!)).toEqual([123_456]);

      // A task created on B is charged at the new price, whichever instance's poller finishes it.
      const id = await createVideo(b.base, tok.secret, 'priced after the change');
      await waitFor(async () => (await videoStatus(a.base, tok.secret, id)) === 'completed', 'the video completes');
      expect((await ledgerOfTask(id)).map((l) => Number(l.amount))).toEqual([3 * 777_000]);
    });

    it('video tasks created on both instances are each polled by one instance at a time and charged once', async () => {
      const tok = await newToken(a.base, 'tasks');
      const since = Date.now();
      const videos = await Promise.all([
        createVideo(a.base, tok.secret, 'v1'),
        createVideo(b.base, tok.secret, 'v2'),
        createVideo(a.base, tok.secret, 'v3'),
        createVideo(b.base, tok.secret, 'v4'),
      ]);
      const familyA = await Promise.all([
        createFamilyA(a.base, tok.secret, 'k1'),
        createFamilyA(b.base, tok.secret, 'k2'),
      ]);
      for (const [i, id] of videos.entries())
        await waitFor(
          async () => (await videoStatus([a, b][i % 2]!.base, tok.secret, id)) === 'completed',
          `video ${id} completes`,
        );
      for (const [i, id] of familyA.entries())
        await waitFor(
          async () => (await familyAStatus([b, a][i % 2]!.base, tok.secret, id)) === 'succeed',
          `task ${id} succeeds`,
        );

      const queries = await statusQueries(since);
      expect(queries.size).toBe(videos.length + familyA.length); // every upstream task was asked about
      for (const [task, at] of queries) {
        const gaps = at.slice(1).map((t, i) => t - at[i]!);
        // Two pollers both working one task would ask about it twice within a few ms now and then. One poller's gaps
        // are its back-off steps, less the lateness of the poll before (the next is planned from the planned time, so
        // a poll a loaded host ran 130 ms late is followed 120 ms later): a quarter step tells the two apart.
        expect(
          Math.min(...gaps, Number.POSITIVE_INFINITY),
          `status queries of upstream task ${task} at ${at.map((t) => t - since).join(', ')} ms`,
        ).toBeGreaterThanOrEqual(POLL_BASE_MS / 4);
      }

      // One ledger row per task, at its price (the video price set by the test before: 777,000 a second).
      for (const id of videos) expect((await ledgerOfTask(id)).map((l) => Number(l.amount))).toEqual([3 * 777_000]);
      for (const id of familyA) expect((await ledgerOfTask(id)).map((l) => Number(l.amount))).toEqual([5.1 * 500_000]);
      const row = await fresh.store.db
        .selectFrom('tokens')
        .select(['spent', 'held'])
        .where('id', '=', tok.id)
        .executeTakeFirstOrThrow();
      expect([Number(row.spent), Number(row.held)]).toEqual([
        videos.length * 3 * 777_000 + familyA.length * 5.1 * 500_000,
        0,
      ]);

      // The result, fetched by either instance from the simulator's own address (TOLLWAY_RESULT_HOSTS).
      const content = await fetch(`${b.base}/v1/videos/${videos[0]}/content`, {
        headers: { authorization: `Bearer ${tok.secret}` },
      });
      expect(content.status).toBe(200);
      expect((await content.arrayBuffer()).byteLength).toBeGreaterThan(0);
    });

    it('instance A killed (SIGKILL) while its tasks run upstream: instance B finishes them, each charged once', async () => {
      const tok = await newToken(a.base, 'survivor');
      // Each status query takes a while: at the kill, the pollers are in the middle of asking.
      expect(
        (
          await fetch(`${sim.base}/__sim/faults`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ kind: 'delay', arg: 300, path: '/api/v1/tasks/' }),
          })
        ).status,
      ).toBe(200);
      const since = Date.now();
      const videos = await Promise.all([
        createVideo(a.base, tok.secret, 'k-v1'),
        createVideo(a.base, tok.secret, 'k-v2'),
        createVideo(a.base, tok.secret, 'k-v3'),
      ]);
      const familyA = [await createFamilyA(a.base, tok.secret, 'k-k1')];
      const created = (await upstreamRequests()).filter(
        (r) => r.method === 'POST' && r.at >= since && /video-synthesis|\/v1\/videos\/text2video$/.test(r.path),
      );
      expect(created).toHaveLength(videos.length + familyA.length);
      // Polling has begun on every task.
      await waitFor(
        async () => (await statusQueries(since)).size === videos.length + familyA.length,
        'every task is being polled',
      );

      a.child.kill('SIGKILL');
      await a.exited;
      const killedAt = Date.now();
      expect(a.child.signalCode).toBe('SIGKILL');
      // The upstream tasks were still running when A died.
      for (const r of created) expect(r.at + TASK_MS).toBeGreaterThan(killedAt);

      for (const id of videos)
        await waitFor(
          async () => (await videoStatus(b.base, tok.secret, id)) === 'completed',
          `video ${id} completes on B`,
        );
      for (const id of familyA)
        await waitFor(
          async () => (await familyAStatus(b.base, tok.secret, id)) === 'succeed',
          `task ${id} succeeds on B`,
        );
      await fetch(`${sim.base}/__sim/faults`, { method: 'DELETE' });

      for (const id of videos) expect((await ledgerOfTask(id)).map((l) => Number(l.amount))).toEqual([3 * 777_000]);
      for (const id of familyA) expect((await ledgerOfTask(id)).map((l) => Number(l.amount))).toEqual([5.1 * 500_000]);
      const row = await fresh.store.db
        .selectFrom('tokens')
        .select(['spent', 'held'])
        .where('id', '=', tok.id)
        .executeTakeFirstOrThrow();
      expect([Number(row.spent), Number(row.held)]).toEqual([
        videos.length * 3 * 777_000 + familyA.length * 5.1 * 500_000,
        0,
      ]);
      // B asked about every task after A died.
      expect((await statusQueries(killedAt)).size).toBe(videos.length + familyA.length);
    });
  },
);
