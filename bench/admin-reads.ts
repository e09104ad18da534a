// npm run bench:admin-reads — does a heavy admin read stall traffic? A gateway whose SQLite store holds
// BENCH_LEDGER_ROWS (default 1,000,000) ledger rows serves a steady chat load (BENCH_CONNS sequential clients, default
// 8) against the simulator; chat latency is measured first with no admin read, then while monthly bills over every
// row are requested back to back. Run for both settings of TOLLWAY_SQLITE_READ_THREAD (reads on the read thread vs on
// the gateway's own connection), side by side: chat p50/p99/max without and during bills, their ratios, bill time.
import { Pool } from 'undici';
import { chatBody, start, type Proc } from './procs.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNS = Number(process.env.BENCH_CONNS ?? 8);
/** The month the seeded rows fall in (told to the gateway process). */
const BENCH_MONTH = Date.parse('2026-10-01T00:00:00Z');
const BILL_PATH = `/admin/bills?period=month&since=${BENCH_MONTH}&until=${BENCH_MONTH + 31 * 86_400_000}`;

const ADMIN_KEY = 'bench-admin-key-0123456789';

interface Ready extends Proc {
  adminKey: string;
}

async function startGateway(env: Record<string, string>): Promise<Ready> {
  return { ...(await start('admin-reads-proc.ts', { ...env, BENCH_MONTH: String(BENCH_MONTH) })), adminKey: ADMIN_KEY };
}

const pct = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN;

interface Phase {
  chats: number;
  p50: number;
  p99: number;
  max: number;
  bills: number[];
}

/** CONNS clients chatting back to back for SECONDS; with `bills`, one more client requesting bills back to back. */
async function phase(pool: Pool, gw: Ready, bills: boolean): Promise<Phase> {
  const end = performance.now() + SECONDS * 1000;
  const lat: number[] = [];
  const billMs: number[] = [];
  const body = chatBody('qwx3.7-plus', false);
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${gw.token}` };
  const chatter = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      const r = await pool.request({ method: 'POST', path: '/v1/chat/completions', headers, body });
      await r.body.text();
      if (r.statusCode !== 200) throw new Error(`chat answered ${r.statusCode}`);
      lat.push(performance.now() - t0);
    }
  };
  const biller = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      const r = await pool.request({
        method: 'GET',
        path: BILL_PATH,
        headers: { authorization: `Bearer ${gw.adminKey}` },
      });
      const text = await r.body.text();
      if (r.statusCode !== 200) throw new Error(`bill answered ${r.statusCode}: ${text.slice(0, 200)}`);
      billMs.push(performance.now() - t0);
    }
  };
  await Promise.all([...Array.from({ length: CONNS }, chatter), ...(bills ? [biller()] : [])]);
  const s = lat.sort((a, b) => a - b);
  return { chats: s.length, p50: pct(s, 50), p99: pct(s, 99), max: s[s.length - 1] ?? NaN, bills: billMs };
}

async function measure(readThread: boolean, simPort: number) {
  const gw = await startGateway({ BENCH_TARGET_PORT: String(simPort), TOLLWAY_SQLITE_READ_THREAD: String(readThread) });
  const pool = new Pool(`http://127.0.0.1:${gw.port}`, { connections: CONNS + 2 });
  try {
    // Warm-up: the JIT, the connections, the first bill (and the read thread's start).
    await phase(pool, gw, false);
    const warmBill = await pool.request({
      method: 'GET',
      path: BILL_PATH,
      headers: { authorization: `Bearer ${gw.adminKey}` },
    });
    const bill = JSON.parse(await warmBill.body.text()) as { total: { entries: number } };
    const quiet = await phase(pool, gw, false);
    const busy = await phase(pool, gw, true);
    return { readThread, entries: bill.total.entries, quiet, busy };
  } finally {
    await pool.close();
    gw.child.kill();
  }
}

const f = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '-');
const sim = await start('sim-proc.ts');
try {
  const rows = [];
  for (const readThread of [true, false]) rows.push(await measure(readThread, sim.port));
  console.log(
    `\nchat latency (ms) with ${rows[0]!.entries.toLocaleString('en')} ledger rows billed per monthly bill; ${CONNS} chat clients, ${SECONDS} s per phase`,
  );
  console.log(
    'admin reads          | chats quiet | p50 quiet | p99 quiet | max quiet | chats w/ bills | p50 w/ bills | p99 w/ bills | max w/ bills | p99 ratio | bills | bill p50 ms',
  );
  for (const r of rows) {
    const b = [...r.busy.bills].sort((x, y) => x - y);
    console.log(
      `${(r.readThread ? 'read thread' : 'gateway connection').padEnd(20)} | ${String(r.quiet.chats).padStart(11)} | ${f(r.quiet.p50).padStart(9)} | ${f(r.quiet.p99).padStart(9)} | ${f(r.quiet.max).padStart(9)} | ${String(r.busy.chats).padStart(14)} | ${f(r.busy.p50).padStart(12)} | ${f(r.busy.p99).padStart(12)} | ${f(r.busy.max).padStart(12)} | ${(r.busy.p99 / r.quiet.p99).toFixed(1).padStart(9)} | ${String(b.length).padStart(5)} | ${f(pct(b, 50)).padStart(11)}`,
    );
  }
} finally {
  sim.child.kill();
}
