// An oversized body is refused with 413 before it is read, and the connection closes after the answer. A client still
// sending must read that 413 rather than have the connection reset under it (EPIPE / ECONNRESET): the gateway
// lingers, reading and discarding what comes, before it closes (linger.ts).
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.ts';
import { LINGER_BYTES, LINGER_MS } from '../../src/http/linger.ts';

const t = useHarness({
  env: { TOLLWAY_UPLOAD_BODY_LIMIT: '4096', TOLLWAY_BODY_LIMIT: '4096', TOLLWAY_TASK_POLLER: 'false' },
});
const MiB = 1024 * 1024;

/**
 * Announce and send a 16 MiB body without reading anything meanwhile (a client busy sending, as fetch is), then read:
 * the answer's status line, or the error met instead (a reset discards what the client had not read yet).
 */
async function sendThenRead(path: string, contentType: string): Promise<string> {
  const u = new URL(t.h.url);
  const s = connect(Number(u.port), u.hostname);
  let got = '';
  let failed: string | null = null;
  s.on('error', (e: NodeJS.ErrnoException) => (failed ??= e.code ?? String(e)));
  const closed = new Promise<void>((r) => s.once('close', () => r()));
  await new Promise<void>((r) => s.once('connect', () => r()));
  s.pause();
  s.write(
    `POST ${path} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${t.token}\r\ncontent-type: ${contentType}\r\ncontent-length: ${16 * MiB}\r\n\r\n`,
  );
  for (let i = 0; i < 16 && failed === null; i++)
    await new Promise<void>((r) => s.write(Buffer.alloc(MiB, 32), () => r()));
  s.on('data', (d: Buffer) => (got += d.toString('latin1')));
  s.resume();
  s.end();
  await closed;
  return got !== '' ? got.split('\r\n')[0]! : `no answer: ${failed}`;
}

/** Announce 1 GiB and send on after reading the answer: how much was sent before the gateway dropped the connection. */
async function sentUntilDropped(path: string): Promise<{ status: string; sent: number }> {
  const u = new URL(t.h.url);
  const s = connect(Number(u.port), u.hostname);
  let got = '';
  let dropped = false;
  s.on('data', (d: Buffer) => (got += d.toString('latin1')));
  s.on('error', () => (dropped = true));
  s.on('close', () => (dropped = true));
  await new Promise<void>((r) => s.once('connect', () => r()));
  s.write(
    `POST ${path} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${t.token}\r\ncontent-type: application/json\r\ncontent-length: ${1024 * MiB}\r\n\r\n`,
  );
  let sent = 0;
  while (!dropped && sent < 200 * MiB) {
    await new Promise<void>((r) => s.write(Buffer.alloc(MiB, 32), () => r()));
    sent += MiB;
  }
  s.destroy();
  return { status: got.split('\r\n')[0]!, sent };
}

async function fetchStatuses(path: string, contentType: string, body: Uint8Array, tries: number): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < tries; i++) {
    const init = { method: 'POST', headers: { authorization: `Bearer ${t.token}`, 'content-type': contentType }, body };
    seen.push(
      await fetch(`${t.h.url}${path}`, init).then(
        async (res) => {
          await res.arrayBuffer().catch(() => undefined);
          return String(res.status);
        },
        (e: unknown) => String((e as { cause?: { code?: string } }).cause?.code ?? e),
      ),
    );
  }
  return seen;
}

describe('413 for a body still being sent', () => {
  it('a client sending on after the refusal reads the 413 (framework routes: JSON and multipart; the text lane)', async () => {
    const seen = [
      await sendThenRead('/v1/images/generations', 'application/json'),
      await sendThenRead('/v1/images/edits', 'multipart/form-data; boundary=x'),
      await sendThenRead('/v1/chat/completions', 'application/json'),
    ];
    expect(seen).toEqual(Array(3).fill('HTTP/1.1 413 Payload Too Large'));
  });

  it('the drain is bounded: past LINGER_BYTES the connection is dropped', async () => {
    for (const path of ['/v1/images/generations', '/v1/chat/completions']) {
      const { status, sent } = await sentUntilDropped(path);
      expect(status).toBe('HTTP/1.1 413 Payload Too Large');
      // Socket buffers on both sides hold a few MiB more than the gateway read.
      expect(sent).toBeLessThan(LINGER_BYTES + 32 * MiB);
    }
  });

  it("Node's fetch sending a 4 MiB upload: every try reads the 413", async () => {
    const boundary = 'x-boundary';
    const head = Buffer.from(
      `--${boundary}\r\ncontent-disposition: form-data; name="image"; filename="a.png"\r\ncontent-type: image/png\r\n\r\n`,
    );
    const body = Buffer.concat([head, Buffer.alloc(4 * MiB, 7), Buffer.from(`\r\n--${boundary}--\r\n`)]);
    const tries = 20;
    expect(await fetchStatuses('/v1/images/edits', `multipart/form-data; boundary=${boundary}`, body, tries)).toEqual(
      Array(tries).fill('413'),
    );
  });
});

/**
 * Announce a body with no credential and drip it, a byte every DRIP_MS, while reading: the answer's status line and
 * how many bytes were dripped before the gateway dropped the connection.
 */
const DRIP_MS = 20;
async function dripUntilDropped(path: string): Promise<{ status: string; dripped: number }> {
  const u = new URL(t.h.url);
  const s = connect(Number(u.port), u.hostname);
  let got = '';
  let dropped = false;
  s.on('data', (d: Buffer) => (got += d.toString('latin1')));
  s.on('error', () => (dropped = true));
  s.on('close', () => (dropped = true));
  await new Promise<void>((r) => s.once('connect', () => r()));
  s.write(`POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n`);
  let dripped = 0;
  // Bounded: the old linger would take LINGER_MS / DRIP_MS bytes; twice that ends the test either way.
  while (!dropped && dripped < (2 * LINGER_MS) / DRIP_MS) {
    await new Promise((r) => setTimeout(r, DRIP_MS));
    if (!dropped) s.write(' ');
    dripped++;
  }
  s.destroy();
  return { status: got.split('\r\n')[0]!, dripped };
}

describe('an unauthenticated slow drip', () => {
  it('is answered 401 at once and its connection dropped at the first pace check, not held for the whole linger', async () => {
    for (const path of ['/v1/chat/completions', '/v1/images/generations']) {
      const { status, dripped } = await dripUntilDropped(path);
      expect(status).toBe('HTTP/1.1 401 Unauthorized');
      // A drip of 50 bytes a second is dropped within a check or two (a second each), far from the LINGER_MS the
      // wait may last for a body that keeps coming.
      expect(dripped).toBeLessThan(LINGER_MS / DRIP_MS / 3);
    }
  });
});
