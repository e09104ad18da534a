// npm run bench:capacity — one DashScope account allowing BENCH_CAPACITY_RPM (default 60) requests a minute for the
// chat model (the simulator enforcing it per minute and per second), two customers for BENCH_CAPACITY_S (default
// 60) seconds: a noisy one running 24 clients in a loop, a quiet one sending one call every 3 s. Run three times: the
// limit stated on the channel; nothing stated (the gateway reads the account's quota list, as it does by default, and
// learns from the upstream's 429s); nothing stated and the quota list not read (learnt alone). Prints the quiet
// tenant's
// served share and p95, the noisy tenant's served calls, the upstream's throttles and the queue waits.
import { NODE_HEAP_FLAGS } from '../src/runtime/heap.ts';
import { ask, chatBody, start, type Proc } from './procs.ts';

const RPM = Number(process.env.BENCH_CAPACITY_RPM ?? 60);
const SECONDS = Number(process.env.BENCH_CAPACITY_S ?? 60);
const ADMIN = 'bench-admin-key-0123456789';
const MODEL = 'qwx3.7-plus';

interface Answer {
  status: number;
  ms: number;
}

async function admin(gw: Proc, path: string, method: string, body: unknown): Promise<unknown> {
  const r = await fetch(`http://127.0.0.1:${gw.port}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
  return r.json();
}

async function call(gw: Proc, token: string): Promise<Answer> {
  const t0 = performance.now();
  const r = await fetch(`http://127.0.0.1:${gw.port}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: chatBody(MODEL, false),
  });
  await r.arrayBuffer();
  return { status: r.status, ms: performance.now() - t0 };
}

const pct = (xs: number[], p: number): number =>
  [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(xs.length * p) - 1)] ?? 0;

async function metric(gw: Proc, name: string): Promise<string[]> {
  const text = await (
    await fetch(`http://127.0.0.1:${gw.port}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })
  ).text();
  return text.split('\n').filter((l) => l.startsWith(name));
}

/**
 * Where the gateway's limit comes from: stated on the channel, read from the upstream's quota list, or learnt alone.
 */
type Source = 'stated' | 'read' | 'learnt';

async function run(label: string, source: Source): Promise<void> {
  const sim = await start('./sim-proc.ts', { TOLLWAY_SIM_RPM: String(RPM) });
  const env = {
    BENCH_TARGET_PORT: String(sim.port),
    ...(source === 'learnt' ? { TOLLWAY_UPSTREAM_LIMITS_READ_MS: '0' } : {}),
  };
  const gw = await start('./gateway-proc.ts', env, [...NODE_HEAP_FLAGS]);
  try {
    const channels = (await admin(gw, '/admin/channels', 'GET', undefined)) as { data: Array<{ id: string }> };
    if (source === 'stated')
      await admin(gw, `/admin/channels/${channels.data[0]!.id}`, 'PATCH', { model_limits: { '*': { rpm: RPM } } });
    // The bench's channel is made after the gateway started: its account's quota list is read at the reader's next
    // look for new channels (read-limits.ts, every 2 s), as a gateway started with its channels reads it at start.
    if (source === 'read') await new Promise((r) => setTimeout(r, 3000));
    const quietToken = (await admin(gw, '/admin/tokens', 'POST', { name: 'quiet' })) as {
      key?: string;
      token?: string;
      secret?: string;
    };
    const quiet = quietToken.key ?? quietToken.token ?? quietToken.secret!;
    const before = (await ask<{ n: number }>(sim, 'chat-calls')).n;
    const end = performance.now() + SECONDS * 1000;
    const noisy: Answer[] = [];
    const calm: Answer[] = [];
    const loop = async () => {
      while (performance.now() < end) noisy.push(await call(gw, gw.token!));
    };
    const quietLoop = async () => {
      const calls: Promise<unknown>[] = [];
      while (performance.now() < end) {
        calls.push(call(gw, quiet).then((a) => calm.push(a)));
        await new Promise((r) => setTimeout(r, 3000));
      }
      await Promise.all(calls);
    };
    await Promise.all([...Array.from({ length: 24 }, loop), quietLoop()]);
    const upstream = (await ask<{ n: number }>(sim, 'chat-calls')).n - before;
    const served = noisy.filter((a) => a.status === 200).length + calm.filter((a) => a.status === 200).length;
    const quietServed = calm.filter((a) => a.status === 200);
    const waits = await metric(gw, 'tollway_capacity_wait_seconds_');
    const sum = Number(
      waits
        .find((l) => l.startsWith('tollway_capacity_wait_seconds_sum'))
        ?.split(' ')
        .pop() ?? 0,
    );
    const count = Number(
      waits
        .find((l) => l.startsWith('tollway_capacity_wait_seconds_count'))
        ?.split(' ')
        .pop() ?? 0,
    );
    console.log(
      `${label}: quiet served ${quietServed.length}/${calm.length} (${((100 * quietServed.length) / Math.max(1, calm.length)).toFixed(0)}%), ` +
        `p95 ${(
          pct(
            quietServed.map((a) => a.ms),
            0.95,
          ) / 1000
        ).toFixed(2)} s; noisy served ${noisy.filter((a) => a.status === 200).length}/${noisy.length}; ` +
        `upstream calls ${upstream}, throttled ${upstream - served} (${((100 * (upstream - served)) / Math.max(1, upstream)).toFixed(0)}%); ` +
        `queue waits ${count} calls, mean ${(sum / Math.max(1, count)).toFixed(2)} s`,
    );
  } finally {
    for (const p of [gw, sim]) p.child.kill();
  }
}

console.log(
  `tollway bench:capacity — one account at ${RPM} rpm, 24 looping clients + 1 call / 3 s, ${SECONDS} s, node ${process.version}`,
);
await run('limit stated                ', 'stated');
await run('nothing stated (read+learnt) ', 'read');
await run('nothing stated, nothing read', 'learnt');
