// Charges queued in the group commit when the gateway is SIGKILLed. `tollway serve` as a child
// process, a few clients calling it in a loop (chat, streamed chat, images: every call charged), the store's writes
// stalled by a lock the test holds, then SIGKILL, then a restarted gateway, and `tollway reconcile` through a gateway
// on the same store.
//
// The stall makes the writer's lag certain instead of a matter of load: while the ledger cannot be written, the age
// bound (GroupCommit.behind) must stop answers once the oldest queued charge is 100 ms old, so what a crash loses
// stays the last moments' answers however far the writer falls behind. On PostgreSQL the request log is stalled
// first, on its own: the charges of the calls answered meanwhile land without their request-log rows, and reconcile
// must name them ('request-log row missing'), apart from priced mismatches. (On SQLite both are written in one
// transaction: a crash loses both rows of a call or neither.)
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SIM_KEYS } from '../../simulator/index.ts';
import { REQUEST_LOG_ROW_MISSING } from '../../src/core/reconcile.ts';
import type { Store } from '../../src/store/store.ts';
import { chargedLoad } from '../support/charged-load.ts';
import { runProcess } from '../support/run-process.ts';
import { TOLLWAY_BIN, useServeProcesses, type ServeProcess } from '../support/serve-process.ts';
import { useSimulator } from '../support/simulator.ts';
import { freshStore, processUrl, testDialect, type FreshStore } from '../support/store.ts';
import { tempDir } from '../support/temp-dir.ts';
import { until } from '../support/wait.ts';

const ADMIN = 'crash-admin-key-0123456789abcdef';
const SECRET = 'crash-secret-0123456789abcdefghij';
const LOGGED_NOT_CHARGED = 'the request log shows a charge the ledger does not have';
const postgres = testDialect() === 'postgres';
const TEXT = ['chat', 'stream'] as const;

const dir = tempDir('tollway-crash-charges-');
let dbUrl: string;
let sqliteFile = '';
let store: Store;
let fresh: FreshStore | undefined;
const upstream = useSimulator();

beforeAll(async () => {
  fresh = await freshStore();
  store = fresh.store;
  dbUrl = processUrl(fresh);
  sqliteFile = postgres ? '' : fresh.url.slice('sqlite:'.length);
});

afterAll(async () => fresh?.cleanup());

const start = useServeProcesses();
const env = (): Record<string, string> => ({
  HOME: process.env.HOME ?? dir,
  TOLLWAY_DATA_DIR: dir,
  DATABASE_URL: dbUrl,
  TOLLWAY_ADMIN_KEY: ADMIN,
  TOLLWAY_SECRET: SECRET,
  DASHSCOPE_API_KEY: DEFAULT_SIM_KEYS.dashscopeApiKey,
  DASHSCOPE_BASE_URL: upstream.sim.url,
  LOG_LEVEL: 'error',
});
const serve = (): Promise<ServeProcess> => start(env());

/** The gateway's ledger queue lag (s), from its /metrics. */
async function ledgerLag(base: string): Promise<number> {
  const r = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } });
  const m = /tollway_write_queue_lag_seconds\{queue="ledger"\} (\S+)/.exec(await r.text());
  return Number(m?.[1] ?? 0);
}

/** A lock on the store's tables, held by the test: the gateway's writes to them wait until release(). */
interface StoreLock {
  lock(table: 'ledger' | 'request_log'): Promise<void>;
  /** Ends the lock; resolves once no write of the killed gateway it held back is still running (PostgreSQL). */
  release(): Promise<void>;
}

async function storeLock(): Promise<StoreLock> {
  if (!postgres) {
    // One writer for the whole file: a write transaction held here stalls the ledger and the request log together.
    const db = new BetterSqlite3(sqliteFile);
    return {
      lock: async () => {
        if (!db.inTransaction) db.exec('BEGIN IMMEDIATE');
      },
      release: async () => {
        db.exec('ROLLBACK');
        db.close();
      },
    };
  }
  const c = new pg.Client({ connectionString: dbUrl });
  await c.connect();
  await c.query('BEGIN');
  // Every backend waiting on this lock, directly or behind one that waits on it.
  const blocked = async () =>
    (
      await c.query<{ pid: number }>(
        `WITH RECURSIVE b(pid) AS (SELECT pid FROM pg_stat_activity WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))
           UNION SELECT a.pid FROM pg_stat_activity a JOIN b ON b.pid = ANY(pg_blocking_pids(a.pid)))
         SELECT pid FROM b`,
      )
    ).rows.map((r) => r.pid);
  return {
    lock: async (table) => {
      await c.query(`LOCK TABLE ${table} IN EXCLUSIVE MODE`);
    },
    release: async () => {
      const held = await blocked();
      await c.query('ROLLBACK');
      // A dead client's backend runs its statement once the lock is gone, then ends: wait, so the counts are final.
      await until(async () => {
        const r = await c.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ANY($1::int[])', [held]);
        return r.rows[0].n === 0;
      }, 'the killed gateway backends to end');
      await c.end();
    },
  };
}

describe('SIGKILL with charges queued in the group commit, writer stalled', () => {
  it('answers stop once the queued charges are 100 ms old; after a restart, no double charge and reconcile names what the crash half-wrote', async () => {
    const g1 = await serve();
    const made = await fetch(`${g1.base}/admin/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'crash-charges' }),
    });
    expect(made.status).toBe(201);
    const { token, id: tokenId } = (await made.json()) as { token: string; id: string };
    const from = Date.now() - 1000;

    // Phase 0: the load runs with the writer keeping up.
    // Text calls' charges are written behind; an image's is committed before its answer (it waits out a stall).
    const load = chargedLoad(g1.base, token, [
      ['chat', 'stream'],
      ['stream', 'chat'],
      ['chat'],
      ['stream'],
      ['image'],
      ['image'],
    ]);
    await until(() => load.answered() >= 30, '30 calls answered');
    const lock = await storeLock();
    if (postgres) {
      // Phase 1: request-log rows wait; charges land. Until some calls answered now are charged.
      await lock.lock('request_log');
      load.phase = 1;
      await until(async () => {
        const ids = load.calls.filter((c) => c.ok && c.phase === 1).map((c) => c.rid);
        if (ids.length === 0) return false;
        const rows = await store.db.selectFrom('ledger').select('request_id').where('request_id', 'in', ids).execute();
        return rows.length >= 5;
      }, 'charges of calls answered while the request log waits');
    }
    // Phase 2: the ledger waits too. Once its queue is past the age bound, no call is answered any more.
    await lock.lock('ledger');
    load.phase = 2;
    await until(async () => (await ledgerLag(g1.base)) >= 0.5, 'the ledger queue 0.5 s behind');
    const frozen = load.answered(TEXT);
    // (On SQLite the stalled writer gives up after its busy timeout, 5 s: a failing writer holds no answer back.)
    await until(async () => (await ledgerLag(g1.base)) >= 1.5, 'the ledger queue 1.5 s behind');
    const later = load.answered(TEXT);

    g1.child.kill('SIGKILL');
    await g1.exited;
    await load.stop();
    await lock.release();
    expect(later, 'text calls answered while the ledger queue was over 0.5 s behind').toBe(frozen);

    // A restarted gateway serves and charges on the same store; its graceful stop writes its queues.
    const g2 = await serve();
    const after = await fetch(`${g2.base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'after the restart' }] }),
    });
    expect(after.status).toBe(200);
    const afterId = String(after.headers.get('x-gateway-request-id'));
    await after.text();
    await g2.stop();

    const ledger = await store.db.selectFrom('ledger').selectAll().where('token_id', '=', tokenId).execute();
    const logs = await store.db.selectFrom('request_log').selectAll().where('token_id', '=', tokenId).execute();
    const charged = new Map<string, number>();
    for (const l of ledger) charged.set(String(l.request_id), (charged.get(String(l.request_id)) ?? 0) + 1);
    const logged = new Set(logs.map((q) => q.request_id));
    const ours = new Set([...load.calls.map((c) => c.rid), afterId]);

    // No double charge; every charge is one of our calls; the balance is the ledger's sum; nothing held.
    const doubles = [...charged.values()].filter((n) => n > 1).length;
    expect(doubles).toBe(0);
    for (const rid of charged.keys()) expect(ours.has(rid), rid).toBe(true);
    expect(charged.get(afterId)).toBe(1);
    const t = await store.db
      .selectFrom('tokens')
      .select(['spent', 'held'])
      .where('id', '=', tokenId)
      .executeTakeFirstOrThrow();
    expect(BigInt(t.spent)).toBe(ledger.reduce((a, l) => a + BigInt(l.amount), 0n));
    expect(Number(t.held)).toBe(0);
    expect(
      await store.db
        .selectFrom('holds')
        .select('hold_key')
        .where('token_id', '=', tokenId)
        .where('state', '=', 'held')
        .execute(),
    ).toHaveLength(0);

    // reconcile names exactly the calls the crash half-wrote, for what they are, and nothing else. The CLI is a client
    // of the admin API: a gateway on the same store answers it.
    const g3 = await serve();
    const rec = await runProcess(
      process.execPath,
      [TOLLWAY_BIN, 'reconcile', '--since', String(from), '--until', String(Date.now() + 1000), '--json'],
      {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? dir,
          TOLLWAY_URL: g3.base,
          TOLLWAY_ADMIN_KEY: ADMIN,
        },
        timeoutMs: 60_000,
      },
    ).finally(() => g3.stop());
    const report = JSON.parse(rec.stdout) as {
      difference: number | string;
      mismatches: Array<{ key: string; reason: string; reported_amount: number | null }>;
      open_holds: unknown[];
    };
    const unlogged = [...charged.keys()].filter((rid) => !logged.has(rid)).sort();
    const uncharged = logs.filter((q) => Number(q.amount) > 0 && !charged.has(q.request_id));
    const named = (reason: string) =>
      report.mismatches
        .filter((m) => m.reason === reason)
        .map((m) => m.key)
        .sort();
    expect(named(REQUEST_LOG_ROW_MISSING)).toEqual(unlogged);
    expect(named(LOGGED_NOT_CHARGED)).toEqual(uncharged.map((q) => q.request_id).sort());
    expect(report.mismatches).toHaveLength(unlogged.length + uncharged.length);
    expect(report.open_holds).toHaveLength(0);
    expect(BigInt(report.difference)).toBe(-uncharged.reduce((a, q) => a + BigInt(q.amount), 0n));
    expect(rec.code).toBe(report.mismatches.length === 0 ? 0 : 1);
    if (postgres) expect(unlogged.length, 'charges landed while the request log waited').toBeGreaterThan(0);

    // Every success the clients received is charged once, named by reconcile, or lost in the window at the kill.
    const ok = load.calls.filter((c) => c.ok);
    const lost = ok.filter((c) => !charged.has(c.rid) && !logged.has(c.rid));
    // An image's charge is committed before it is answered: never lost.
    for (const c of ok.filter((x) => x.kind === 'image')) expect(charged.get(c.rid), c.rid).toBe(1);
    console.log(
      `[crash] ${testDialect()}: answered 200 before the kill ${ok.length} (text ${frozen - load.answeredIn(0, TEXT) - load.answeredIn(1, TEXT)} after the ledger stalled), ` +
        `charges landed ${ledger.length - 1}, reported by reconcile ${unlogged.length + uncharged.length} ` +
        `(request-log row missing ${unlogged.length}, uncharged ${uncharged.length}), lost unreported ${lost.length}, double charges ${doubles}`,
    );
  }, 180_000);
});
