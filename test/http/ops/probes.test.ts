// GET /healthz (liveness: the process serves, nothing else asked) and GET /readyz (readiness: the database answers,
// every migration is applied, Redis answers when configured), both without a credential.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Gateway } from '../../../src/process-life.ts';
import { openStore, type Store } from '../../../src/store/store.ts';
import { expectB } from '../../support/error-shapes.ts';
import { freePort } from '../../support/free-port.ts';
import { ADMIN_KEY, SECRET, useHarness, type Harness } from '../../support/harness.ts';
import { until } from '../../support/wait.ts';

/** Another gateway on the harness's database through a store (and connections) of its own. */
async function ownStoreGateway(h: Harness): Promise<{ url: string; gw: Gateway; store: Store }> {
  const store = await openStore(h.config.databaseUrl, h.pgSchema ? { pgSchema: h.pgSchema } : {});
  const gw = await startGateway(
    { ...h.config, tasks: { ...h.config.tasks, pollerEnabled: false } },
    { adminKey: ADMIN_KEY, secret: SECRET, store },
  );
  const url = (await gw.app.listen({ port: 0, host: '127.0.0.1' })).replace('[::1]', '127.0.0.1');
  return { url, gw, store };
}

describe('GET /healthz and /readyz', () => {
  const t = useHarness();

  it('answer without a credential: alive, and ready with every check', async () => {
    const live = await t.h.fetch('/healthz');
    expect(live.status).toBe(200);
    expect(live.headers.get('x-gateway-request-id')).toMatch(/^req_/);
    expect(await live.json()).toEqual({ status: 'ok' });
    const ready = await t.h.fetch('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: 'ready',
      checks: { database: 'ok', migrations: 'ok', redis: 'not_configured' },
    });
  });

  it('readyz: 503 once the instance has lost its database (its store closed); healthz still 200', async () => {
    const b = await ownStoreGateway(t.h);
    try {
      expect((await fetch(`${b.url}/readyz`)).status).toBe(200);
      await b.store.close();
      const body = await expectB(await fetch(`${b.url}/readyz`), 503, 'service_unavailable');
      expect(body.error.message).toContain('the database is not reachable');
      expect((await fetch(`${b.url}/healthz`)).status).toBe(200);
    } finally {
      await b.gw.close().catch(() => undefined);
    }
  });

  it('readyz: 503 naming the migration the database has not applied', async () => {
    const db = t.h.store.db;
    const row = await db
      .selectFrom('kysely_migration' as never)
      .selectAll()
      .where('name' as never, '=', '003-ledger-indexes' as never)
      .executeTakeFirstOrThrow();
    const b = await ownStoreGateway(t.h);
    try {
      await db
        .deleteFrom('kysely_migration' as never)
        .where('name' as never, '=', '003-ledger-indexes' as never)
        .execute();
      const body = await expectB(await fetch(`${b.url}/readyz`), 503, 'service_unavailable');
      expect(body.error.message).toContain('migrations not applied: 003-ledger-indexes');
    } finally {
      await db
        .insertInto('kysely_migration' as never)
        .values(row as never)
        .execute();
    }
    try {
      expect((await fetch(`${b.url}/readyz`)).status).toBe(200);
    } finally {
      await b.gw.close();
      await b.store.close();
    }
  });
});

const haveRedisServer = spawnSync('redis-server', ['--version']).status === 0;

describe.runIf(haveRedisServer)('GET /readyz with Redis configured', () => {
  let port = 0;
  let redis: ChildProcess | null = null;
  const startRedis = async () => {
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    redis = child;
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => d.toString().includes('Ready to accept connections') && resolve());
      child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
    });
  };
  const stopRedis = async () => {
    const child = redis;
    redis = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  // Redis starts before the harness (hooks run in the order they are registered) and stops after it.
  beforeAll(async () => {
    port = await freePort();
    await startRedis();
  });
  const t = useHarness({ configure: (c) => void (c.redisUrl = `redis://127.0.0.1:${port}`) });
  afterAll(stopRedis);

  it('is ready while Redis answers, 503 while it is down, ready again once it is back', async () => {
    const ready = await t.h.fetch('/readyz');
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { checks: { redis: string } }).checks.redis).toBe('ok');
    await stopRedis();
    const body = await expectB(await t.h.fetch('/readyz'), 503, 'service_unavailable');
    expect(body.error.message).toContain('Redis is not reachable');
    expect(body.error.message).not.toContain('database');
    expect((await t.h.fetch('/healthz')).status).toBe(200);
    // The outage reaches the log as a line of the gateway's own (not as ioredis's unhandled-error noise).
    expect(t.h.logs.join('')).toContain('Redis is not reachable; reconnecting');
    await startRedis();
    await until(async () => (await t.h.fetch('/readyz')).status === 200, 'ready again once Redis is back');
  });
});
