// Gateway.close() drains in-flight work but is bounded by TOLLWAY_DRAIN_MS: a client that never finishes
// sending its body cannot keep the gateway from shutting down.
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.ts';

describe('bounded drain on close', () => {
  const t = useHarness({ env: { TOLLWAY_DRAIN_MS: '300' } });

  it('cuts a connection still busy after the drain window', async () => {
    const url = new URL(t.h.url);
    const sock = connect(Number(url.port), url.hostname);
    await new Promise<void>((r) => sock.once('connect', () => r()));
    let closedByServer = false;
    sock.on('close', () => (closedByServer = true));
    sock.on('error', () => undefined);
    // Announce 1000 bytes, send 10: the request stays in flight (not idle) for as long as the client wants.
    sock.write(
      `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"model":1`,
    );
    await new Promise((r) => setTimeout(r, 50));
    // Without the bound, close() would wait for the missing 990 bytes forever (the test would time out).
    await t.h.close();
    for (let i = 0; i < 50 && !closedByServer; i++) await new Promise((r) => setTimeout(r, 10));
    expect(closedByServer).toBe(true);
    sock.destroy();
  });
});
