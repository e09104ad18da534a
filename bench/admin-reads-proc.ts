// The gateway of `npm run bench:admin-reads` in its own process: a SQLite store seeded with BENCH_LEDGER_ROWS ledger
// rows (one calendar month, 50 tokens, two models) through a connection of its own before the gateway opens it,
// one DashScope channel on the simulator, a token. TOLLWAY_SQLITE_READ_THREAD passes through (the two modes compared).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { DEFAULT_SIM_KEYS } from '../simulator/context.ts';
import { loadConfig } from '../src/config/config.ts';
import { startGateway } from '../src/process-life.ts';
import { ensureChannel } from '../src/core/admin/channels.ts';
import { createToken } from '../src/core/admin/tokens.ts';
import { tuneHeap } from '../src/runtime/heap.ts';
import { openStore } from '../src/store/store.ts';

const BENCH_MONTH = Number(process.env.BENCH_MONTH ?? Date.parse('2026-10-01T00:00:00Z'));
const ROWS = Number(process.env.BENCH_LEDGER_ROWS ?? 1_000_000);
const ADMIN_KEY = 'bench-admin-key-0123456789';

const dir = mkdtempSync(join(tmpdir(), 'tollway-bench-admin-'));
const file = join(dir, 'bench.db');
// Migrate, then seed in one transaction with the store's own table shape.
await (await openStore(`sqlite:${file}`, { readThread: false })).close();
const raw = new BetterSqlite3(file);
raw.pragma('journal_mode = WAL');
const ins = raw.prepare(
  'INSERT INTO ledger (idempotency_key, token_id, model, kind, quantities, unit_prices, amount, request_id, task_id, upstream_request_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)',
);
const quantities = JSON.stringify({ input_tokens: 120, output_tokens: 40 });
const prices = JSON.stringify({ input_per_1k: 800, output_per_1k: 2000 });
raw.transaction(() => {
  for (let i = 0; i < ROWS; i++) {
    ins.run(
      `seed_${i}`,
      `tok_seed_${i % 50}`,
      i % 4 ? 'qwx3.7-plus' : 'text-embedding-v4',
      'tokens',
      quantities,
      prices,
      176,
      `req_seed_${i}`,
      `up_${i}`,
      BENCH_MONTH + Math.floor((i / ROWS) * 30 * 86_400_000),
    );
  }
})();
raw.close();

const passed = Object.fromEntries(
  ['TOLLWAY_SQLITE_READ_THREAD'].flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])),
);
const config = loadConfig({ DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'info', TOLLWAY_DATA_DIR: dir, ...passed });
tuneHeap(config.heapGrowingPercent);
const gw = await startGateway(config, { adminKey: ADMIN_KEY, secret: 'bench-secret-0123456789abcdefghij' });
await ensureChannel(gw.deps, 'sim', 'dashscope', `http://127.0.0.1:${process.env.BENCH_TARGET_PORT}`, {
  apiKey: DEFAULT_SIM_KEYS.dashscopeApiKey,
});
await gw.deps.channels.reload();
const { secret } = await createToken(gw.deps, { name: 'bench' });
const address = await gw.app.listen({ port: 0, host: '127.0.0.1' });
process.send?.({ type: 'ready', port: Number(new URL(address).port), token: secret, adminKey: ADMIN_KEY, rows: ROWS });
