// A client that leaves while its call waits for upstream capacity: it leaves the queue at once — no upstream call,
// no hold left on its quota, no charge.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.ts';
import { flushWriters, ledgerOfToken, tokenRow } from '../support/store-rows.ts';
import { until } from '../support/wait.ts';
import { chat, stateLimits } from './support.ts';

describe('a client that leaves while queued', () => {
  // A queue wait far longer than the test: only the client's leaving can take the call out of the queue.
  const t = useHarness({ env: { TOLLWAY_QUEUE_WAIT_MS: '600000' } });

  it('makes no upstream call and leaves no hold and no charge', async () => {
    const { h } = t;
    await stateLimits(h, { '*': { rpm: 1 } });
    const first = await h.token({ name: 'first', quota: 10_000_000 });
    const leaver = await h.token({ name: 'leaver', quota: 10_000_000 });
    expect((await chat(h, first.secret)).status).toBe(200);
    const sent = h.sim.requestsTo('/chat/completions').length;
    const gate = () => h.gw.deps.capacity.all()[0]!;
    // Every reservation made from here on, and every one released.
    const meter = h.gw.deps.meter;
    const reserved: string[] = [];
    const released: string[] = [];
    const reserve = meter.reserve.bind(meter);
    const release = meter.releaseReserved.bind(meter);
    meter.reserve = (id, ...rest) => {
      reserved.push(id);
      return reserve(id, ...rest);
    };
    meter.releaseReserved = (id) => {
      released.push(id);
      return release(id);
    };
    const ac = new AbortController();
    const call = chat(h, leaver.secret, ac.signal).catch((e: unknown) => e);
    await until(() => gate().waiting === 1, 'the call queued');
    // Queued: its quota holds the call's estimate.
    expect(reserved).toHaveLength(1);
    ac.abort();
    await call;
    await until(() => gate().waiting === 0, 'the queue emptied');
    await flushWriters(h);
    expect(h.sim.requestsTo('/chat/completions').length).toBe(sent);
    await until(() => released.length === 1, 'the reservation released');
    expect(released).toEqual(reserved);
    // The released hold reaches the token's row (PostgreSQL: through the write-behind flush).
    await until(async () => {
      await flushWriters(h);
      return Number((await tokenRow(h, leaver.id)).held) === 0;
    }, 'the hold gone from the token');
    expect(Number((await tokenRow(h, leaver.id)).spent)).toBe(0);
    expect(await ledgerOfToken(h, leaver.id)).toEqual([]);
    expect(gate().inFlight).toBe(0);
  });
});
