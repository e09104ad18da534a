// The poller thread keeps coming back: a thread that ends unexpectedly is started again, and while its starts fail
// (here: its SQLite file cannot be opened) it keeps retrying, backing off, until one succeeds; a first start that
// fails is reported to the caller and not retried; a stop asked for at any point ends the thread.
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeLogger } from '../../src/runtime/logger.ts';
import { loadConfig } from '../../src/config/config.ts';
import { PollerThread } from '../../src/tasks/poller-thread.ts';
import { sqliteFileStore } from '../support/store.ts';

const lines: string[] = [];
const sink = { write: (l: string) => lines.push(l) };
const logger = makeLogger('info', sink);
const threads: PollerThread[] = [];
/** The first restart delay: short, so the backing off is seen without waiting seconds for it. */
const RESTART_MS = 20;
afterEach(async () => {
  await Promise.all(threads.splice(0).map((p) => p.stop()));
  lines.length = 0;
});

function pollerOn(url: string): PollerThread {
  const dataDir = mkdtempSync(join(tmpdir(), 'tollway-poller-'));
  const config = loadConfig({ DATABASE_URL: url, TOLLWAY_DATA_DIR: dataDir, LOG_LEVEL: 'info' });
  const p = new PollerThread(
    {
      config,
      adminKey: 'poller-admin-key-0123456789',
      secret: 'poller-secret-0123456789abcdefghij',
      location: { url },
      queryRateMemory: new SharedArrayBuffer(8192),
      taskOwner: 'inst_poller_restart',
    },
    sink,
    logger,
    RESTART_MS,
  );
  threads.push(p);
  return p;
}

async function until(what: string, cond: () => boolean, ms = 60_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (cond()) return;
  throw new Error(`never happened: ${what}`);
}
const restarts = () =>
  lines
    .filter((l) => l.includes('task poller thread exited; restarting it'))
    .map((l) => JSON.parse(l) as { retry_ms: number; err?: string });

describe('the poller thread across failures', () => {
  it('retries failing restarts with a growing delay until the store can be opened again', async () => {
    const s = await sqliteFileStore();
    const dir = dirname(s.file);
    try {
      const p = pollerOn(s.url);
      await p.start();
      const first = p.tid;
      expect(first).not.toBeNull();
      // The store's folder is gone (a file stands in its place): every start fails until it is back.
      renameSync(dir, `${dir}.away`);
      writeFileSync(dir, '');
      await p.kill();
      await until('two failed restarts', () => restarts().filter((r) => r.err).length >= 2);
      const delays = restarts().map((r) => r.retry_ms);
      expect(delays.slice(0, 2)).toEqual([RESTART_MS, 2 * RESTART_MS]);
      rmSync(dir);
      renameSync(`${dir}.away`, dir);
      await until('a restart that succeeds', () => p.tid !== first && p.tid !== null);
    } finally {
      rmSync(`${dir}.away`, { recursive: true, force: true });
      await s.cleanup();
    }
  }, 180_000);

  it('a first start that fails is reported, not retried', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tollway-poller-bad-'));
    writeFileSync(join(dir, 'not-a-dir'), '');
    const p = pollerOn(`sqlite:${join(dir, 'not-a-dir', 'x.db')}`);
    await expect(p.start()).rejects.toThrow(/did not start/);
    // Ten times the first restart delay: a restart would have been scheduled (and logged) by then.
    await new Promise((r) => setTimeout(r, 10 * RESTART_MS));
    expect(restarts()).toEqual([]);
    rmSync(dir, { recursive: true, force: true });
  });
});
