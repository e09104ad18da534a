// npm run bench:stats [-- rows]: how long GET /admin/stats's aggregation (core/admin/stats.ts) takes over a request
// log of N rows (default 1,000,000) spread evenly over 30 days, per window, on SQLite — or on PostgreSQL with
// BENCH_DATABASE_URL: the first view of each window (it rolls up the closed buckets) and the views after it (they read
// the rollup and the open part of the log). Side by side: with the request_log(created_at) index, and with it
// dropped (the rollup emptied first).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { sql } from 'kysely';
import { overviewStats, WINDOWS, type StatsWindow } from '../src/core/admin/stats.ts';
import { AccountsRepo } from '../src/store/repos/accounts.ts';
import { LedgerRepo } from '../src/store/repos/ledger.ts';
import { LedgerStatsRepo } from '../src/store/repos/ledger-stats.ts';
import { RequestLogRepo } from '../src/store/repos/request-log.ts';
import { RequestStatsRepo } from '../src/store/repos/request-stats.ts';
import { openStore } from '../src/store/store.ts';

const N = Number(process.argv[2] ?? 1_000_000);
const dir = mkdtempSync(join(tmpdir(), 'tollway-bench-stats-'));
const schema = `bench_stats_${process.pid}`;
const url = process.env.BENCH_DATABASE_URL ?? `sqlite:${join(dir, 'bench.db')}`;
const store = await openStore(url, url.startsWith('postgres') ? { pgSchema: schema } : {});
const now = Date.now();
const span = 30 * 86_400_000;
const models = ['qwx3.7-plus', 'qwx3.7-turbo', 'text-embedding-v4', 'wanx-video', 'kling-v2'];

const t0 = performance.now();
for (let i = 0; i < N; i += 1000) {
  const rows = [];
  for (let j = i; j < Math.min(N, i + 1000); j++) {
    rows.push({
      request_id: `req_${j}`,
      token_id: `tok_${j % 200}`,
      model: models[j % models.length]!,
      endpoint: '/v1/chat/completions',
      method: 'POST',
      status: j % 50 === 0 ? 502 : 200,
      latency_ms: 20,
      usage: null,
      amount: j % 997,
      upstream_request_id: null,
      error_code: null,
      created_at: now - Math.floor(((j + 0.5) / N) * span),
    });
  }
  await store.db.insertInto('request_log').values(rows).execute();
}
// BENCH_STATS_COVERING=1: measure a covering index (every column the aggregation reads) in place of the plain one.
if (process.env.BENCH_STATS_COVERING === '1') {
  await sql`drop index request_log_time`.execute(store.db);
  await store.db.deleteFrom('request_stats_buckets').execute();
  await store.db.deleteFrom('request_stats_filled').execute();
  await sql`create index request_log_time on request_log (created_at, status, amount, model, token_id)`.execute(
    store.db,
  );
}
if (store.dialect === 'postgres') await sql`analyze request_log`.execute(store.db);
console.log(`${N} rows written in ${((performance.now() - t0) / 1000).toFixed(1)} s (${store.dialect})`);

const deps = {
  repos: {
    requestStats: new RequestStatsRepo(store.db),
    ledger: new LedgerRepo(store.db),
    ledgerStats: new LedgerStatsRepo(store.db),
    accounts: new AccountsRepo(store.db),
  },
};
async function measure(label: string): Promise<void> {
  for (const w of Object.keys(WINDOWS) as StatsWindow[]) {
    const times: number[] = [];
    // The longest the event loop was held during the first view (SQLite runs queries on it).
    const loop = monitorEventLoopDelay({ resolution: 10 });
    for (let k = 0; k < 6; k++) {
      if (k === 0) loop.enable();
      const s = performance.now();
      const r = await overviewStats(deps, w, now);
      times.push(performance.now() - s);
      if (k === 0) loop.disable();
      if (k === 0 && r.totals.requests === 0) throw new Error('no rows counted');
    }
    const cold = times.shift()!;
    const held = loop.max / 1e6;
    times.sort((a, b) => a - b);
    console.log(
      `${label.padEnd(14)} window=${w.padEnd(4)} first ${cold.toFixed(1)} ms (event loop held at most ${held.toFixed(0)} ms), then median ${times[2]!.toFixed(1)} ms (min ${times[0]!.toFixed(1)}, max ${times[4]!.toFixed(1)})`,
    );
  }
  // The request-log page: the newest 50 of every token, and a page 15 days back.
  const logs = new RequestLogRepo(store.db);
  for (const [name, before] of [
    ['newest 50', undefined],
    ['50 before -15d', now - 15 * 86_400_000],
  ] as const) {
    const times: number[] = [];
    for (let k = 0; k < 5; k++) {
      const s = performance.now();
      await logs.list({ limit: 50, ...(before ? { beforeCreatedAt: before } : {}) });
      times.push(performance.now() - s);
    }
    times.sort((a, b) => a - b);
    console.log(`${label.padEnd(14)} logs ${name.padEnd(15)} median ${times[2]!.toFixed(1)} ms`);
  }
}
await measure('with index');
await sql`drop index request_log_time`.execute(store.db);
await store.db.deleteFrom('request_stats_buckets').execute();
await store.db.deleteFrom('request_stats_filled').execute();
await measure('without index');
await store.close();
rmSync(dir, { recursive: true, force: true });
