// Starts a real gateway (real HTTP server, real store) against a real simulator, for one test file.
// Dialect comes from TOLLWAY_TEST_DIALECT (scripts/test.mjs runs the suite once per dialect).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll } from 'vitest';
import { DEFAULT_SIM_KEYS, startSimulator, type SimOptions, type Simulator } from '../../simulator/index.ts';
import { ensureChannel } from '../../src/bootstrap.ts';
import { loadConfig, type Config } from '../../src/config/config.ts';
import { createGateway, type Gateway } from '../../src/gateway.ts';
import { createToken } from '../../src/http/routes/admin/tokens.ts';
import { openStore, type Store } from '../../src/store/store.ts';

export const ADMIN_KEY = 'test-admin-key-0123456789abcdef';
export const SECRET = 'test-secret-0123456789abcdefghij';

export type TestDialect = 'sqlite' | 'postgres';

export function testDialect(): TestDialect {
  return process.env.TOLLWAY_TEST_DIALECT === 'postgres' ? 'postgres' : 'sqlite';
}

let schemaSeq = 0;

/** A fresh, migrated store for the current test dialect (SQLite temp file, or a fresh PostgreSQL schema). */
export async function freshStore(): Promise<{ store: Store; url: string; pgSchema?: string; cleanup(): Promise<void> }> {
  if (testDialect() === 'postgres') {
    const url = process.env.TEST_DATABASE_URL;
    if (!url) throw new Error('TOLLWAY_TEST_DIALECT=postgres needs TEST_DATABASE_URL');
    const pgSchema = `t_${process.pid}_${Date.now().toString(36)}_${schemaSeq++}`;
    const store = await openStore(url, { pgSchema });
    return {
      store,
      url,
      pgSchema,
      cleanup: async () => {
        await store.db.schema.dropSchema(pgSchema).ifExists().cascade().execute().catch(() => undefined);
        await store.close();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'tollway-test-'));
  const url = `sqlite:${join(dir, 'test.db')}`;
  const store = await openStore(url);
  return {
    store,
    url,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Harness {
  url: string;
  gw: Gateway;
  sim: Simulator;
  store: Store;
  config: Config;
  /** Every log line the gateway wrote. */
  logs: string[];
  adminKey: string;
  /** Create a client token directly (returns the secret). */
  token(opts?: { name?: string; models?: string[]; quota?: number; expiresAt?: number }): Promise<{ id: string; secret: string }>;
  /** fetch against the gateway. */
  fetch(path: string, init?: RequestInit & { token?: string; json?: unknown }): Promise<Response>;
  admin(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  sim?: SimOptions;
  env?: Record<string, string>;
  /** Configure channels for the simulator (default true). */
  channels?: boolean;
  /** Mutate the config before the gateway is built. */
  configure?: (c: Config) => void;
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const sim = await startSimulator({ taskDurationMs: 300, ...opts.sim });
  const fresh = await freshStore();
  const dataDir = mkdtempSync(join(tmpdir(), 'tollway-data-'));
  // A short drain keeps a test's teardown bounded when it left a request hanging on purpose.
  const config = loadConfig({ DATABASE_URL: fresh.url, LOG_LEVEL: 'info', TOLLWAY_DATA_DIR: dataDir, TOLLWAY_DRAIN_MS: '5000', ...opts.env });
  config.trustedResultOrigins.push(new URL(sim.url).origin);
  opts.configure?.(config);
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      logs.push(chunk.toString('utf8'));
      cb();
    },
  });
  const gw = await createGateway(config, { adminKey: ADMIN_KEY, secret: SECRET, logStream, store: fresh.store });
  if (opts.channels !== false) {
    await ensureChannel(gw.deps, 'sim-dashscope', 'dashscope', sim.url, { apiKey: DEFAULT_SIM_KEYS.dashscopeApiKey });
    await ensureChannel(gw.deps, 'sim-kling', 'kling', sim.url, { accessKey: DEFAULT_SIM_KEYS.klingAccessKey, secretKey: DEFAULT_SIM_KEYS.klingSecretKey });
  }
  const address = await gw.app.listen({ port: 0, host: '127.0.0.1' });
  const url = address.replace('[::1]', '127.0.0.1');
  const doFetch = (path: string, init: RequestInit & { token?: string; json?: unknown } = {}) => {
    const headers = new Headers(init.headers);
    if (init.token) headers.set('authorization', `Bearer ${init.token}`);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(init.json);
    }
    return fetch(url + path, { ...init, headers, body: body ?? null });
  };
  return {
    url,
    gw,
    sim,
    store: fresh.store,
    config,
    logs,
    adminKey: ADMIN_KEY,
    token: async (o = {}) => {
      const { record, secret } = await createToken(gw.deps, { name: o.name ?? 'test', models: o.models, quota: o.quota, expiresAt: o.expiresAt });
      return { id: record.id, secret };
    },
    fetch: doFetch,
    admin: (path, init = {}) => doFetch(path, { ...init, token: ADMIN_KEY }),
    close: async () => {
      await gw.close();
      await sim.close();
      await fresh.cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A harness and one client token for a test file: started before its tests, closed after them. Read `.h` and
 * `.token` inside tests (they are set once beforeAll has run).
 */
export function useHarness(opts: HarnessOptions = {}): { readonly h: Harness; readonly token: string } {
  const state: { h?: Harness; token?: string } = {};
  beforeAll(async () => {
    state.h = await startHarness(opts);
    state.token = (await state.h.token()).secret;
  });
  afterAll(async () => state.h?.close());
  return {
    get h() {
      return state.h!;
    },
    get token() {
      return state.token!;
    },
  };
}
