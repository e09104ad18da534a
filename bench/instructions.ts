// npm run bench:instructions — instructions per request, counted by valgrind (callgrind), for non-streaming chat,
// streamed chat and embeddings (BENCH_IR_KINDS) through the bare proxy, the durable floor (bench/lean-skeleton.ts
// with SKELETON_DURABLE=1, chat only), the gateway, and (chat only) the gateway with a token in an account with budgets
// (and, when BENCH_IR_TARGETS names it, with a token that has a quota only).
// Why: on a shared host the wall-clock figures of `npm run bench` drift between windows of a few seconds, so two
// builds can only be compared in many paired rounds. Instruction counts do not depend on the machine's speed: on
// an otherwise idle machine the main thread's count per request repeats closely from run to run
// (docs/performance.md), which makes it the figure for A/B comparisons of hot-path changes run back to back.
// (Other load shifts it: a target slowed further does its clock-driven work — group commits, pollers — over fewer
// requests.) Counts cover user space only (the kernel's share — socket writes and reads, the same for every
// target — is not in them), and V8's helper threads (concurrent GC and JIT) are reported apart: their counts vary
// more, and callgrind runs threads one at a time.
// Each target runs under callgrind with instrumentation off while it warms up (BENCH_IR_WARMUP requests, then more
// until its first full collection and until full collections have stopped: SETTLE_MAX), then it is switched on for
// BENCH_IR_REQUESTS requests (16 connections) and the counters are dumped; then, counted apart, as long again with no
// request (the clock-driven work over the window's time: BENCH_IR_IDLE=0 leaves it out).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { DEFAULT_SIM_KEYS } from '../simulator/context.ts';
import { NODE_HEAP_FLAGS } from '../src/runtime/heap.ts';
import type { AllocStats } from './alloc.ts';
import { allocText, type Counted, idleText } from './ir-report.ts';
import { countsFrom, valgrindPresent } from './callgrind.ts';
import { ask, chatBody, embedBody, type Proc, start } from './procs.ts';

const REQUESTS = Number(process.env.BENCH_IR_REQUESTS ?? 3000);
const WARMUP = Number(process.env.BENCH_IR_WARMUP ?? 8000);
/**
 * At most this many more warm-up requests, 1,000 at a time, until the target has made its first full collection
 * since it was ready. V8 sets the old generation's first limit from the heap it had while starting, and the steady
 * load reaches that limit once, some thousands of requests in; after that collection the limit is twice the live
 * heap, tens of thousands of requests away. That one collection, and the recompilation after it, fell in the counted
 * window or not from run to run (docs/performance.md, "Where the spread between runs came from").
 */
const SETTLE_MAX = Number(process.env.BENCH_IR_SETTLE_MAX ?? 24000);
/** Requests run after that collection, before counting. */
const AFTER_COLLECTION = 4000;
/**
 * And wall time with no full collection, before counting: V8's memory reducer collects some seconds after a full
 * collection when allocation looks slow (its delay is 8 s), and then again while each one frees memory.
 */
const QUIET_MS = Number(process.env.BENCH_IR_QUIET_MS ?? 30_000);
/** BENCH_IR_IDLE=0: no idle window after the counted one. */
const IDLE = process.env.BENCH_IR_IDLE !== '0';
/**
 * More node flags for the targets, space-separated: `--perf-basic-prof` writes the map that names V8's JIT code in the
 * dumps.
 */
const EXTRA_NODE_FLAGS = process.env.BENCH_IR_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];

type Kind = 'chat' | 'stream' | 'embeddings';
const KINDS: readonly Kind[] = ['chat', 'stream', 'embeddings'];

interface IrTarget {
  name: 'proxy' | 'floor' | 'gateway' | 'limits' | 'quota' | 'account';
  file: string;
  env: Record<string, string>;
  /** The API path prefix ('/v1' or the upstream's '/compatible-mode/v1'). */
  base: string;
  /** Public names for the gateway and the floor, upstream names for the proxy. */
  upstreamNames: boolean;
  kinds: readonly Kind[];
  /** The bearer the target expects (the gateway and the floor hand theirs over when ready). */
  auth: (token: string | undefined) => string;
  /** Measured only when BENCH_IR_TARGETS names it. */
  named?: boolean;
}

/** The gateway (bench/gateway-proc.ts) on its public paths; `token`: BENCH_TOKEN, the kind of token it hands over. */
const gatewayTarget = (
  name: IrTarget['name'],
  kinds: readonly Kind[],
  token?: string,
  env: Record<string, string> = {},
): IrTarget => ({
  name,
  file: './gateway-proc.ts',
  env: token ? { ...env, BENCH_TOKEN: token } : env,
  base: '/v1',
  upstreamNames: false,
  kinds,
  auth: (k) => k!,
});

function request(t: IrTarget, kind: Kind): { path: string; body: string } {
  if (kind === 'embeddings') return { path: `${t.base}/embeddings`, body: embedBody('text-embedding-v4') };
  return {
    path: `${t.base}/chat/completions`,
    body: chatBody(t.upstreamNames ? 'qwen3.7-plus' : 'qwx3.7-plus', kind === 'stream'),
  };
}

const majorGcs = async (p: Proc): Promise<number> => (await ask<{ majorGcs: number }>(p, 'stats')).majorGcs;

/**
 * Requests run, 1,000 at a time, until AFTER_COLLECTION of them and QUIET_MS of wall time have passed since the last
 * full collection (at most `max`).
 */
async function settleAfterCollection(p: Proc, run: (n: number) => PromiseLike<unknown>, max: number): Promise<number> {
  let done = 0;
  let since = 0;
  let gcs = await majorGcs(p);
  let quietFrom = Date.now();
  while (done < max && (since < AFTER_COLLECTION || Date.now() - quietFrom < QUIET_MS)) {
    await run(1000);
    done += 1000;
    since += 1000;
    const now = await majorGcs(p);
    if (now !== gcs) [gcs, since, quietFrom] = [now, 0, Date.now()];
  }
  return done;
}

async function measure(t: IrTarget, kind: Kind, simPort: number, dir: string): Promise<Counted> {
  const out = join(dir, `${t.name}-${kind}.out`);
  const { path, body } = request(t, kind);
  const args = [
    '-q',
    '--tool=callgrind',
    '--smc-check=all-non-file',
    '--instr-atstart=no',
    '--separate-threads=yes',
    `--callgrind-out-file=${out}`,
  ];
  const p = await start(
    t.file,
    { ...t.env, BENCH_TARGET_PORT: String(simPort) },
    [...NODE_HEAP_FLAGS, ...EXTRA_NODE_FLAGS],
    {
      execPath: 'valgrind',
      args,
    },
  );
  try {
    const run = (amount: number) =>
      autocannon({
        url: `http://127.0.0.1:${p.port}${path}`,
        method: 'POST',
        connections: 16,
        amount,
        timeout: 60,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${t.auth(p.token)}` },
        body,
      });
    // The warm-up is two runs, so connections have closed and reopened before counting starts: otherwise the first
    // close deoptimises the stream code V8 had specialised to live connections, and its recompilation on the
    // compiler threads lands in the counted window.
    const atReady = await majorGcs(p);
    await run(Math.ceil(WARMUP / 2));
    await run(Math.floor(WARMUP / 2));
    let extra = 0;
    for (; extra < SETTLE_MAX && (await majorGcs(p)) === atReady; extra += 1000) await run(1000);
    // A full collection throws away compiled code V8 has not run lately, and deoptimises some; the recompilation
    // would land in the counted window. It is also followed by the memory reducer's collections, which V8 starts when
    // the allocation rate looks low, as it does under callgrind: warm up until they have stopped too.
    const after = extra < SETTLE_MAX ? await settleAfterCollection(p, run, SETTLE_MAX - extra) : 0;
    const pid = String(p.child.pid);
    // The allocation of the counted window (alloc.ts): V8's GC profiler reads the heap's statistics at each
    // collection, on the main thread, inside the window.
    await ask(p, 'alloc-start');
    execFileSync('callgrind_control', ['--instr=on', pid], { stdio: 'ignore' });
    const began = Date.now();
    const r = await run(REQUESTS);
    const windowMs = Date.now() - began;
    execFileSync('callgrind_control', ['--dump', pid], { stdio: 'ignore' });
    const alloc = await ask<AllocStats>(p, 'alloc-stop');
    if (r.non2xx + r.errors > 0 || r.requests.total !== REQUESTS)
      throw new Error(`${t.name}: ${r.non2xx} non-2xx, ${r.errors} errors of ${r.requests.total}`);
    // The same wall time again with no request: what the target's clocks (timers, pollers, V8's own idle-time work)
    // cost over the window, counted apart — under callgrind a chat takes some 50 times longer than natively, so that
    // work weighs per chat many times what it does in a real run.
    if (IDLE) {
      await new Promise((res) => setTimeout(res, windowMs));
      execFileSync('callgrind_control', ['--dump', pid], { stdio: 'ignore' });
    }
    const dumps = readdirSync(dir)
      .filter((f) => f.startsWith(`${t.name}-${kind}.out`))
      .map((f) => readFileSync(join(dir, f), 'utf8'));
    const idle = IDLE ? countsFrom(dumps, REQUESTS, 2) : null;
    return { ...countsFrom(dumps, REQUESTS), settle: extra, after, alloc, idle, windowMs };
  } finally {
    p.child.kill('SIGKILL');
  }
}

async function main(): Promise<void> {
  if (!valgrindPresent()) {
    console.error('bench:instructions needs valgrind (Debian package valgrind: apt-get install valgrind)');
    process.exit(1);
  }
  // The simulator states no rate limits, so its quota list gives the gateway none to read: the `gateway` target is a
  // channel with no limit stated or read; `limits` states them.
  const sim = await start('./sim-proc.ts', { TOLLWAY_SIM_RPM: '0', TOLLWAY_SIM_TPM: '0' });
  const dir = mkdtempSync(join(tmpdir(), 'tollway-ir-'));
  const targets: IrTarget[] = [
    {
      name: 'proxy',
      file: './bare-proxy.ts',
      env: {},
      base: '/compatible-mode/v1',
      upstreamNames: true,
      kinds: KINDS,
      auth: () => DEFAULT_SIM_KEYS.dashscopeApiKey,
    },
    {
      name: 'floor',
      file: './lean-skeleton.ts',
      env: { SKELETON_DURABLE: '1' },
      base: '/compatible-mode/v1',
      upstreamNames: false,
      kinds: ['chat'],
      auth: (k) => k!,
    },
    gatewayTarget('gateway', KINDS),
    // The gateway again, limits stated on its channel for every model, far above the bench's load (chat only): every
    // call passes its account x model's gate and none waits.
    gatewayTarget('limits', ['chat'], undefined, {
      BENCH_MODEL_LIMITS: JSON.stringify({ '*': { rpm: 100_000_000, tpm: 100_000_000_000, concurrency: 10_000 } }),
    }),
    // The gateway again, its token with a quota of its own only (chat; run when BENCH_IR_TARGETS names it): the
    // reservation's share of the account target's difference.
    { ...gatewayTarget('quota', ['chat'], 'quota'), named: true },
    // The gateway again, its token in an account with a quota and budgets, budgets on the token too (chat only).
    gatewayTarget('account', ['chat'], 'account-budgets'),
  ];
  const only = process.env.BENCH_IR_TARGETS?.split(',');
  const kinds = (process.env.BENCH_IR_KINDS?.split(',') ?? KINDS).filter((k): k is Kind =>
    (KINDS as readonly string[]).includes(k),
  );
  console.log(
    `tollway bench:instructions — ${kinds.join(', ')}: ${REQUESTS} requests counted after ${WARMUP} of warm-up, 16 connections, under callgrind`,
  );
  const got = new Map<string, Counted>();
  try {
    for (const kind of kinds) {
      for (const t of targets.filter((x) => (only ? only.includes(x.name) : !x.named) && x.kinds.includes(kind))) {
        const c = await measure(t, kind, sim.port, dir);
        got.set(`${t.name}-${kind}`, c);
        const proxy = got.get(`proxy-${kind}`);
        const gateway = got.get(`gateway-${kind}`);
        const rel =
          proxy && t.name !== 'proxy'
            ? `  (${(c.main / proxy.main).toFixed(2)}× the proxy's main thread, ${(c.all / proxy.all).toFixed(2)}× its threads)`
            : '';
        const vsGateway =
          gateway && (t.name === 'account' || t.name === 'quota' || t.name === 'limits')
            ? ` (${(c.main / gateway.main).toFixed(3)}× the plain token's main thread)`
            : '';
        const quota = got.get(`quota-${kind}`);
        const vsQuota =
          quota && t.name === 'account' ? ` (${(c.main / quota.main).toFixed(3)}× the quota-only token's)` : '';
        const settled =
          c.settle < SETTLE_MAX
            ? `warm-up +${c.settle} to its first full collection, +${c.after} after it (${QUIET_MS / 1000} s without one)`
            : `no full collection in ${SETTLE_MAX} more of warm-up`;
        const parts = `(V8's threads ${c.v8}, worker threads ${c.workers}; ${settled})`;
        console.log(
          `${kind.padEnd(10)} ${t.name.padEnd(8)} ${allocText(c.alloc, t.name === 'proxy' ? undefined : proxy?.alloc, REQUESTS)}`,
        );
        console.log(
          `${kind.padEnd(10)} ${t.name.padEnd(8)} main thread ${String(c.main).padStart(7)} instr/req   all threads ${String(c.all).padStart(7)} instr/req ${parts}${rel}${vsGateway}${vsQuota}`,
        );
        if (c.idle) console.log(`${kind.padEnd(10)} ${t.name.padEnd(8)} ${idleText(c, c.idle, proxy)}`);
      }
    }
  } finally {
    sim.child.kill();
    // BENCH_IR_KEEP=1 keeps callgrind's per-thread dumps for callgrind_annotate.
    if (process.env.BENCH_IR_KEEP === '1') console.log(`callgrind dumps kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
