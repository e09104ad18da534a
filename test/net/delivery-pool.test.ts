// The outboxes' delivery pool (src/net/delivery-pool.ts): deliveries in flight bounded, a host's share of them
// bounded, and a breaker per host: after a timeout the host gets one attempt at a time with the short timeout, until
// the breaker's time passes (a fake clock) — and a POST that timed out is told apart from other failures.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryPool, hostOf } from '../../src/net/delivery-pool.ts';
import { createSafeAgents } from '../../src/net/safe-agent.ts';
import { postSigned } from '../../src/net/signed-post.ts';

const opts = { concurrency: 5, perHost: 2, slowTimeoutMs: 500, breakerMs: 60_000 };

describe('the delivery pool', () => {
  it("bounds what is in flight and each host's share", () => {
    const p = new DeliveryPool(opts, () => 0);
    expect(p.take('a', 10_000)).toBe(10_000);
    expect(p.take('a', 10_000)).toBe(10_000);
    expect(p.take('a', 10_000)).toBeNull();
    expect(p.take('b', 10_000)).toBe(10_000);
    expect(p.take('c', 10_000)).toBe(10_000);
    expect(p.take('d', 10_000)).toBe(10_000);
    expect(p.free).toBe(0);
    expect(p.take('e', 10_000)).toBeNull();
    p.done('a', false);
    expect(p.take('a', 10_000)).toBe(10_000);
  });

  it('after a timeout the host gets one attempt at a time with the short timeout, until the breaker closes', () => {
    let now = 1_000;
    const p = new DeliveryPool(opts, () => now);
    expect(p.take('slow', 10_000)).toBe(10_000);
    p.done('slow', true);
    expect(p.isSlow('slow')).toBe(true);
    expect(p.take('slow', 10_000)).toBe(500);
    expect(p.take('slow', 10_000)).toBeNull();
    // Other hosts are not touched.
    expect(p.take('fine', 10_000)).toBe(10_000);
    p.done('slow', false);
    now += 59_999;
    expect(p.take('slow', 10_000)).toBe(500);
    p.done('slow', false);
    now += 2;
    expect(p.isSlow('slow')).toBe(false);
    expect(p.take('slow', 10_000)).toBe(10_000);
    expect(p.take('slow', 10_000)).toBe(10_000);
  });

  it('hosts are named by host and port', () => {
    expect(hostOf('https://Hooks.Example.com/a?b')).toBe('hooks.example.com');
    expect(hostOf('http://127.0.0.1:8080/x')).toBe('127.0.0.1:8080');
  });
});

describe('a signed POST that times out', () => {
  let silent: Server;
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    silent = createServer((s) => {
      sockets.add(s);
      s.resume();
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => silent.close(r));
  });

  it('is marked timed out (the host breaker opens on it); an answer is not', async () => {
    const agents = createSafeAgents();
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`;
      const base = {
        url,
        id: 'msg_1',
        body: '{}',
        secrets: async () => ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
        userAgent: 't',
        agents,
        allowPrivateNetwork: true,
      };
      const out = await postSigned({ ...base, timeoutMs: 50 });
      expect(out.timedOut).toBe(true);
      for (const s of sockets) s.destroy();
      const cut = await postSigned({ ...base, timeoutMs: 60_000, url: 'http://127.0.0.1:1/' });
      expect(cut.error).not.toBeNull();
      expect(cut.timedOut).toBe(false);
    } finally {
      await agents.close();
    }
  });
});
