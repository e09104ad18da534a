// A task engine over a real store (current test dialect) with a scripted driver: no HTTP, no simulator.
import { Writable } from 'node:stream';
import { Catalogue } from '../../src/catalogue/catalogue.ts';
import { DEFAULT_CATALOGUE } from '../../src/catalogue/default-catalogue.ts';
import { makeLogger } from '../../src/runtime/logger.ts';
import { finishedTaskUsage } from '../../src/core/video-usage.ts';
import { StoreMeter } from '../../src/metering/meter.ts';
import type { Channel } from '../../src/routing/channel-registry.ts';
import { TasksRepo } from '../../src/store/repos/tasks.ts';
import { SlotQueueRepo } from '../../src/store/repos/slot-queue.ts';
import { TokensRepo } from '../../src/store/repos/tokens.ts';
import type { Store } from '../../src/store/store.ts';
import {
  DEFAULT_TASK_ENGINE_OPTIONS,
  TaskEngine,
  type TaskEngineDeps,
  type TaskEngineOptions,
} from '../../src/tasks/engine.ts';
import type { CreateTaskInput, PollOutcome, TaskDriver, TaskRecord } from '../../src/tasks/types.ts';
import { freshStore } from './store.ts';

export const CHANNELS: Record<string, Channel> = {
  ch1: {
    id: 'ch1',
    name: 'one',
    kind: 'dashscope',
    baseUrl: 'http://127.0.0.1:1',
    keys: { apiKey: 'k' },
    models: null,
    priority: 0,
    weight: 1,
    upstreamAccount: null,
    taskSlots: null,
    modelLimits: null,
  },
  ch2: {
    id: 'ch2',
    name: 'two',
    kind: 'dashscope',
    baseUrl: 'http://127.0.0.1:1',
    keys: { apiKey: 'k' },
    models: null,
    priority: 0,
    weight: 1,
    upstreamAccount: null,
    taskSlots: null,
    modelLimits: null,
  },
};

export class ScriptedDriver implements TaskDriver {
  /** upstreamTaskId → outcome to report (default in_progress). */
  outcomes = new Map<string, PollOutcome>();
  polls = 0;
  inflight = new Map<string, number>();
  maxInflight = new Map<string, number>();
  delayMs = 0;
  /** Set to make the driver's queries draw on an upstream account's query rate (limits/query-rate.ts). */
  queryAccount?: (channel: Channel) => string;

  async poll(task: TaskRecord, channel: Channel): Promise<PollOutcome> {
    this.polls += 1;
    const n = (this.inflight.get(channel.id) ?? 0) + 1;
    this.inflight.set(channel.id, n);
    this.maxInflight.set(channel.id, Math.max(n, this.maxInflight.get(channel.id) ?? 0));
    try {
      if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
      return (
        this.outcomes.get(task.upstreamTaskId ?? '') ?? {
          state: 'in_progress',
          upstreamStatus: 'RUNNING',
          progress: 50,
        }
      );
    } finally {
      this.inflight.set(channel.id, (this.inflight.get(channel.id) ?? 1) - 1);
    }
  }
}

export interface EngineFixture {
  store: Store;
  meter: StoreMeter;
  logs: string[];
  tokenId: string;
  driver: ScriptedDriver;
  /** The engine's charge rule for a finished task (core/charge.ts), over the default catalogue. */
  chargedUsage: TaskEngineDeps['chargedUsage'];
  /** The operator's task_slots every parallel-task queue gets (null: not set). */
  slotLimit: number | null;
  /** `deps`: what the test sets beyond the fixture's (a query rate, say). */
  engine(opts?: Partial<TaskEngineOptions>, deps?: Partial<TaskEngineDeps>): TaskEngine;
  input(engine: TaskEngine, over?: Partial<CreateTaskInput>): CreateTaskInput;
  tokenRow(): Promise<{ spent: number; held: number }>;
  cleanup(): Promise<void>;
}

let seq = 0;

export async function engineFixture(): Promise<EngineFixture> {
  const fresh = await freshStore();
  const store = fresh.store;
  const catalogue = new Catalogue(DEFAULT_CATALOGUE);
  const meter = new StoreMeter(store.db, () => catalogue, { batchWriter: store.batchWriter });
  const logs: string[] = [];
  const logger = makeLogger(
    'info',
    new Writable({
      write: (c: Buffer, _e, cb) => {
        logs.push(c.toString());
        cb();
      },
    }),
  );
  const tokenId = `tok_engine_${seq++}`;
  await new TokensRepo(store.db).create({
    id: tokenId,
    name: 'engine',
    secretHash: `hash_${tokenId}`,
    prefix: 'tw_x',
    models: null,
    quota: null,
    expiresAt: null,
  });
  const driver = new ScriptedDriver();
  const engines: TaskEngine[] = [];
  const fixture: EngineFixture = {
    store,
    meter,
    logs,
    tokenId,
    driver,
    chargedUsage: (t, r) => finishedTaskUsage(catalogue, t, r),
    slotLimit: null,
    engine: (opts = {}, deps = {}) => {
      const e = new TaskEngine({
        repo: new TasksRepo(store.db, store.dialect),
        meter: () => meter,
        channels: { forTask: (id) => CHANNELS[id] },
        chargedUsage: fixture.chargedUsage,
        logger,
        slots: {
          repo: new SlotQueueRepo(store.db, store.dialect),
          limitOf: () => fixture.slotLimit,
          submits: opts.slotSubmits ?? DEFAULT_TASK_ENGINE_OPTIONS.slotSubmits,
        },
        options: {
          ...DEFAULT_TASK_ENGINE_OPTIONS,
          pollerEnabled: false,
          pollBaseMs: 10,
          pollMaxMs: 100,
          tickMs: 10,
          refreshStaleMs: 0,
          ...opts,
        },
        ...deps,
      });
      e.registerDriver('test-video', driver);
      engines.push(e);
      return e;
    },
    input: (_engine, over = {}) => ({
      family: 'v1',
      kind: 'test-video',
      tokenId,
      model: 'wnx2.7-t2v',
      billingModel: 'wnx2.7-t2v',
      upstreamModel: 'wan2.7-t2v',
      channel: CHANNELS.ch1!,
      request: { prompt: 'x' },
      requestId: `req_${seq++}`,
      tier: '720p',
      estimate: { kind: 'video', outputSeconds: 5, tier: '720p' },
      submit: async () => ({ upstreamTaskId: `up_${seq++}`, upstreamRequestId: 'rid-create' }),
      ...over,
    }),
    tokenRow: async () => {
      const r = await store.db
        .selectFrom('tokens')
        .select(['spent', 'held'])
        .where('id', '=', tokenId)
        .executeTakeFirstOrThrow();
      return { spent: Number(r.spent), held: Number(r.held) };
    },
    cleanup: async () => {
      for (const e of engines) await e.stop();
      await fresh.cleanup();
    },
  };
  return fixture;
}
