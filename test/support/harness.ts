// Starts a real gateway (real HTTP server, real store) against a real simulator, for one test file or block.
// The store's dialect comes from TOLLWAY_TEST_DIALECT (see store.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { DEFAULT_SIM_KEYS, startSimulator, type SimOptions, type Simulator } from '../../simulator/index.ts';
import { GENEROUS_SIM_LIMITS } from './simulator.ts';
import { loadConfig, type Config } from '../../src/config/config.ts';
import { startGateway, type Gateway } from '../../src/process-life.ts';
import { ensureChannel } from '../../src/core/admin/channels.ts';
import { createToken } from '../../src/core/admin/tokens.ts';
import type { Store } from '../../src/store/store.ts';
import { freshStore } from './store.ts';

export const ADMIN_KEY = 'test-admin-key-0123456789abcdef';
export const SECRET = 'test-secret-0123456789abcdefghij';

export interface Harness {
  /** The gateway's address; after restart() the new gateway's. */
  url: string;
  gw: Gateway;
  sim: Simulator;
  store: Store;
  /** The PostgreSQL schema of the store (another process's connection reaches it through this). */
  pgSchema: string | undefined;
  config: Config;
  /** Every log line the gateway wrote (and the gateways restart() started after it). */
  logs: string[];
  adminKey: string;
  /** Create a client token directly (returns the secret, and the `whsec_…` its task callbacks are signed with). */
  token(opts?: {
    name?: string;
    models?: string[];
    quota?: number;
    expiresAt?: number;
  }): Promise<{ id: string; secret: string; callbackSecret: string }>;
  /** fetch against the gateway. */
  fetch(path: string, init?: RequestInit & { token?: string; json?: unknown }): Promise<Response>;
  admin(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  /**
   * Stop the gateway and start a new one on the same store, simulator and config, as a restarted process does:
   * `url`, `gw`, `fetch` and `admin` reach the new one from then on.
   */
  restart(): Promise<void>;
  /**
   * Another gateway instance on the same store and config (plus `over`), as another process of a cluster; closed with
   * the harness.
   */
  instance(over?: Partial<Config>): Promise<GatewayInstance>;
  /** Close everything (once: later calls wait for the first). */
  close(): Promise<void>;
}

export interface GatewayInstance {
  url: string;
  gw: Gateway;
  logs: string[];
}

export interface HarnessOptions {
  sim?: SimOptions;
  env?: Record<string, string>;
  /** Configure channels for the simulator (default true). */
  channels?: boolean;
  /** Mutate the config before the gateway is built. */
  configure?: (c: Config) => void;
  /** The meter's clock (budget periods): a test moves it instead of sleeping. */
  clock?: () => number;
}

function lineCollector(lines: string[]): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString('utf8'));
      cb();
    },
  });
}

/** A gateway on `store`, logging into `logs`, with `channels` added before it listens on a free port of 127.0.0.1. */
async function listening(
  config: Config,
  store: Store,
  logs: string[],
  channels?: (gw: Gateway) => Promise<void>,
  clock?: () => number,
): Promise<GatewayInstance> {
  const gw = await startGateway(config, {
    adminKey: ADMIN_KEY,
    secret: SECRET,
    logStream: lineCollector(logs),
    store,
    ...(clock ? { clock } : {}),
  });
  await channels?.(gw);
  const address = await gw.app.listen({ port: 0, host: '127.0.0.1' });
  return { gw, url: address.replace('[::1]', '127.0.0.1'), logs };
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const sim = await startSimulator({ taskDurationMs: 300, ...GENEROUS_SIM_LIMITS, ...opts.sim });
  const fresh = await freshStore();
  const dataDir = mkdtempSync(join(tmpdir(), 'tollway-data-'));
  // A short drain keeps a test's teardown bounded when it left a request hanging on purpose.
  const config = loadConfig({
    DATABASE_URL: fresh.url,
    LOG_LEVEL: 'info',
    TOLLWAY_DATA_DIR: dataDir,
    TOLLWAY_DRAIN_MS: '5000',
    TOLLWAY_UPSTREAM_LIMITS_READ_MS: '0',
    // A test that injects 429s on purpose answers them as they come; the capacity tests turn learning on.
    TOLLWAY_CAPACITY_LEARN: 'false',
    ...opts.env,
  });
  config.trustedResultOrigins.push(new URL(sim.url).origin);
  opts.configure?.(config);
  const logs: string[] = [];
  const first = await listening(
    config,
    fresh.store,
    logs,
    async (gw) => {
      if (opts.channels === false) return;
      await ensureChannel(gw.deps, 'sim-dashscope', 'dashscope', sim.url, { apiKey: DEFAULT_SIM_KEYS.dashscopeApiKey });
      await ensureChannel(gw.deps, 'sim-kling', 'kling', sim.url, {
        accessKey: DEFAULT_SIM_KEYS.klingAccessKey,
        secretKey: DEFAULT_SIM_KEYS.klingSecretKey,
      });
    },
    opts.clock,
  );
  const others: Gateway[] = [];
  let closing: Promise<void> | undefined;
  const h: Harness = {
    url: first.url,
    gw: first.gw,
    sim,
    store: fresh.store,
    pgSchema: fresh.pgSchema,
    config,
    logs,
    adminKey: ADMIN_KEY,
    token: async (o = {}) => {
      const { record, secret, callbackSecret } = await createToken(h.gw.deps, {
        name: o.name ?? 'test',
        models: o.models,
        quota: o.quota,
        expiresAt: o.expiresAt,
      });
      return { id: record.id, secret, callbackSecret };
    },
    fetch: (path, init = {}) => {
      const headers = new Headers(init.headers);
      if (init.token) headers.set('authorization', `Bearer ${init.token}`);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set('content-type', 'application/json');
        body = JSON.stringify(init.json);
      }
      return fetch(h.url + path, { ...init, headers, body: body ?? null });
    },
    admin: (path, init = {}) => h.fetch(path, { ...init, token: ADMIN_KEY }),
    restart: async () => {
      await h.gw.close();
      const next = await listening(config, fresh.store, logs, undefined, opts.clock);
      h.gw = next.gw;
      h.url = next.url;
    },
    instance: async (over = {}) => {
      const other = await listening({ ...config, ...over }, fresh.store, [], undefined, opts.clock);
      others.push(other.gw);
      return other;
    },
    close: () =>
      (closing ??= (async () => {
        for (const gw of others) await gw.close();
        await h.gw.close();
        await sim.close();
        await fresh.cleanup();
        rmSync(dataDir, { recursive: true, force: true });
      })()),
  };
  return h;
}

/** An answer read whole: status, request id, content type and body text. */
export interface TextAnswer {
  status: number;
  rid: string | null;
  type: string;
  text: string;
}

/** POST `json` with a client token and read the whole answer. */
export async function postJson(h: Harness, token: string, path: string, json: unknown): Promise<TextAnswer> {
  const r = await h.fetch(path, { method: 'POST', token, json });
  return {
    status: r.status,
    rid: r.headers.get('x-gateway-request-id'),
    type: r.headers.get('content-type') ?? '',
    text: await r.text(),
  };
}

export interface UseHarnessOptions extends HarnessOptions {
  /** A fresh harness for every test of the block (default: one for the whole block). */
  perTest?: boolean;
}

/**
 * What useHarness() gives a test file: read its fields inside tests and hooks (they are set once the harness started).
 */
export interface HarnessHandle {
  readonly h: Harness;
  /** The secret of a client token made for the block (no allow-list, no quota). */
  readonly token: string;
  /** That token's id. */
  readonly tokenId: string;
}

/**
 * A harness and one client token for a test file or a describe block: started before its tests, closed after them
 * (or around each test, with `perTest`). Hooks the file registers after this call run after the harness started
 * and before it closes.
 */
export function useHarness(opts: UseHarnessOptions = {}): HarnessHandle {
  const state: { h?: Harness; token?: { id: string; secret: string } } = {};
  const start = async () => {
    state.h = await startHarness(opts);
    state.token = await state.h.token();
  };
  const stop = async () => {
    await state.h?.close();
    state.h = undefined;
    state.token = undefined;
  };
  if (opts.perTest) {
    beforeEach(start);
    afterEach(stop);
  } else {
    beforeAll(start);
    afterAll(stop);
  }
  return {
    get h() {
      return state.h!;
    },
    get token() {
      return state.token!.secret;
    },
    get tokenId() {
      return state.token!.id;
    },
  };
}
