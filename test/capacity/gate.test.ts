import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LocalCounters } from '../../src/capacity/counters.ts';
import { Gate } from '../../src/capacity/gate.ts';
import { Ticket } from '../../src/capacity/ticket.ts';
import type { GatewayError } from '../../src/errors/gateway-error.ts';

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

function gate(limits: { rpm?: number; tpm?: number; concurrency?: number }, queueWaitMs = 5000): Gate {
  const g = new Gate('acc|m', 'acc', 'm', {
    counters: new LocalCounters(() => Date.now()),
    queueWaitMs,
    now: () => Date.now(),
  });
  g.setLimits({ rpm: limits.rpm ?? null, tpm: limits.tpm ?? null, concurrency: limits.concurrency ?? null });
  return g;
}

describe('gate', () => {
  it('admits a call with room synchronously, and queues the next until the rate has room', async () => {
    const g = gate({ rpm: 60 });
    const first = g.admit('a', 1, 0, null);
    expect(first).toBeInstanceOf(Ticket);
    const second = g.admit('a', 1, 0, null);
    expect(second).toBeInstanceOf(Promise);
    let done = false;
    void (second as Promise<Ticket>).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(500);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(900);
    expect(done).toBe(true);
    expect((await second).waitedMs).toBeGreaterThanOrEqual(1000);
  });

  it('serves waiting tenants in turns: a quiet one is not behind a noisy one’s queue', async () => {
    const g = gate({ rpm: 60 }, 60_000);
    (g.admit('noisy', 1, 0, null) as Ticket).settle(undefined);
    const order: string[] = [];
    const all: Promise<unknown>[] = [];
    for (let i = 0; i < 10; i++)
      all.push((g.admit('noisy', 1, 0, null) as Promise<Ticket>).then(() => order.push('noisy')));
    all.push((g.admit('quiet', 1, 0, null) as Promise<Ticket>).then(() => order.push('quiet')));
    await vi.advanceTimersByTimeAsync(15_000);
    await Promise.all(all);
    expect(order.indexOf('quiet')).toBeLessThanOrEqual(1);
  });

  it('holds a concurrency slot until the ticket is settled', async () => {
    const g = gate({ concurrency: 1 });
    const t = g.admit('a', 1, 0, null) as Ticket;
    const next = g.admit('b', 1, 0, null) as Promise<Ticket>;
    let done = false;
    void next.then(() => (done = true));
    await vi.advanceTimersByTimeAsync(1000);
    expect(done).toBe(false);
    t.settle(undefined);
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(true);
    expect(g.inFlight).toBe(1);
  });

  it('answers 429 upstream_capacity with Retry-After after the queue wait, and keeps nothing of the call', async () => {
    const g = gate({ concurrency: 1 }, 2000);
    g.admit('a', 1, 0, null);
    const p = g.admit('b', 1, 0, null) as Promise<Ticket>;
    const caught = p.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(2000);
    const e = (await caught) as GatewayError;
    expect(e.code).toBe('upstream_capacity');
    expect(e.status).toBe(429);
    expect(Number(e.headers?.['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(g.waiting).toBe(0);
    expect(g.inFlight).toBe(1);
  });

  it('a client that leaves while queued leaves the queue at once, and never takes a slot', async () => {
    const g = gate({ concurrency: 1 });
    const t = g.admit('a', 1, 0, null) as Ticket;
    let leave: () => void = () => undefined;
    let unsubscribed = false;
    const p = g.admit('b', 1, 0, (l) => {
      leave = l;
      return () => (unsubscribed = true);
    }) as Promise<Ticket>;
    const caught = p.catch((e: unknown) => e);
    expect(g.waiting).toBe(1);
    leave();
    const e = (await caught) as GatewayError;
    expect(e.callerAborted).toBe(true);
    expect(g.waiting).toBe(0);
    expect(unsubscribed).toBe(true);
    t.settle(undefined);
    expect(g.inFlight).toBe(0);
  });

  it('takes the token estimate from the TPM and gives back what the usage did not use', async () => {
    const g = gate({ tpm: 60_000 });
    // Burst: one second's worth (1000 tokens).
    const t = g.admit('a', 1, 1000, null) as Ticket;
    expect(g.admit('a', 1, 500, null)).toBeInstanceOf(Promise);
    t.settle(100);
    await vi.advanceTimersByTimeAsync(0);
    // The 900 tokens given back let the waiting call in at once.
    expect(g.waiting).toBe(0);
  });

  it('an upstream refusal pauses the gate for its Retry-After, and the learnt rate is halved and grows back', async () => {
    const g = gate({});
    for (let i = 0; i < 40; i++) (g.admit('a', 1, 0, null) as Ticket).settle(undefined);
    g.refused('requests', 3000);
    // 40 calls in the gate's first 5 s: 480 a minute, halved.
    expect(g.effective().rpm).toBe(240);
    const p = g.admit('a', 1, 0, null);
    expect(p).toBeInstanceOf(Promise);
    let done = false;
    void (p as Promise<Ticket>).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(2900);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    expect(done).toBe(true);
    await vi.advanceTimersByTimeAsync(30_000);
    g.admit('a', 1, 0, null);
    expect(g.effective().rpm).toBeGreaterThan(240);
  });

  it('each refused kind moves only its own limit', () => {
    const g = gate({});
    for (let i = 0; i < 10; i++) (g.admit('a', 1, 100, null) as Ticket).settle(undefined);
    g.refused('tokens', 1000);
    expect(g.effective().rpm).toBeNull();
    expect(g.effective().tpm).not.toBeNull();
  });

  it('refusals of calls sent before the pause neither lengthen it nor halve the rate again', async () => {
    const g = gate({});
    for (let i = 0; i < 40; i++) (g.admit('a', 1, 0, null) as Ticket).settle(undefined);
    g.refused('burst', null);
    expect(g.effective().rpm).toBe(240);
    // Twenty more answers of calls that were in flight together with the first: the same event.
    for (let i = 0; i < 20; i++) g.refused('burst', null);
    expect(g.effective().rpm).toBe(240);
    expect(g.retryAfterS()).toBe(1);
    await vi.advanceTimersByTimeAsync(1000);
    // After the pause, calls go paced at the learnt rate, one at a time: not all that waited at once.
    expect(g.admit('a', 1, 0, null)).toBeInstanceOf(Ticket);
    expect(g.admit('a', 1, 0, null)).toBeInstanceOf(Promise);
  });

  it('a new gate refused before it has seen enough to halve starts at one request a second', async () => {
    const g = gate({});
    g.refused('burst', null);
    expect(g.effective().rpm).toBe(60);
    await vi.advanceTimersByTimeAsync(1000);
    expect(g.admit('a', 1, 0, null)).toBeInstanceOf(Ticket);
    expect(g.admit('a', 1, 0, null)).toBeInstanceOf(Promise);
  });
});
